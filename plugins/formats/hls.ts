import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {ffmpegRate, type AssemblyContext, type RenderPlan, type VideoSegmentFormat} from '../../src/plugin/index.js'
import {mp4Format} from './mp4.js'

/** Apple's recommended target duration for VOD media segments. */
export const DEFAULT_HLS_SEGMENT_SECONDS = 6

/**
 * Seconds per media segment, floored to the microsecond: the muxer cuts at the first keyframe at or
 * after each multiple, and the keyframes sit on the render's grid, which a rounding up could miss.
 */
function segmentSeconds(plan: RenderPlan): string {
  const [num, den] = ffmpegRate(plan.fps).split('/').map(Number)
  const micros = Math.floor((plan.segmentFrames * (den ?? 1) * 1_000_000) / num)
  return (micros / 1_000_000).toFixed(6)
}

/**
 * HTTP Live Streaming: a VOD playlist (`clip.m3u8`) and MPEG-TS media segments beside it
 * (`clip_00000.ts`, ...). The video is exactly the mp4 format's H.264 (the same segments, stream
 * copied), so a playlist and an mp4 of one composition decode to the same frames; the keyframe
 * interval is the segment length, so every media segment starts on the render's grid and the
 * files are byte-identical however many workers or chunks drew them. MPEG-TS rather than fMP4:
 * every HLS player (HLS version 3, older devices and set-top boxes) plays it, and it needs no
 * initialisation segment.
 */
export const hlsFormat: VideoSegmentFormat = {
  name: 'hls',
  mimeType: 'application/vnd.apple.mpegurl',
  description: `HTTP Live Streaming: an .m3u8 VOD playlist and H.264/AAC MPEG-TS segments beside it, ${DEFAULT_HLS_SEGMENT_SECONDS} s each unless --hls-segment-seconds says otherwise`,
  alpha: false,
  audio: 'aac',
  evenDimensions: true,
  rateControl: true,
  gpu: true,
  worker: 'video-segment',
  extension: '.m3u8',
  segmentExtension: mp4Format.segmentExtension,
  companionFilePattern: /^_\d{5,}\.ts$/,
  keyframeInterval: (encode) => encode.hlsSegmentSeconds ?? DEFAULT_HLS_SEGMENT_SECONDS,
  requiredEncoders: (encode) => mp4Format.requiredEncoders(encode),
  segmentArgs: (context) => mp4Format.segmentArgs(context),
  async assemble(context: AssemblyContext) {
    await context.ffmpeg([
      ...(await context.copySegments()),
      '-f', 'hls',
      '-hls_time', segmentSeconds(context.plan),
      '-hls_list_size', '0',
      '-hls_playlist_type', 'vod',
      '-hls_segment_type', 'mpegts',
      '-hls_segment_filename', join(context.companionDir, `${context.outputStem}_%05d.ts`),
      context.outputPath,
    ])
    await writeFile(context.outputPath, withWholeTargetDuration(await readFile(context.outputPath, 'utf8')))
  },
}

/**
 * RFC 8216 4.3.3.1: every EXTINF rounded to the nearest integer must be at most the target
 * duration, which is a whole number. ffmpeg 5.1 rounds its target down (0 for 0.5 s segments),
 * which strict players and Apple's validator refuse: use the longest segment rounded up, at least 1.
 */
export function withWholeTargetDuration(playlist: string): string {
  const longest = Math.max(0, ...[...playlist.matchAll(/^#EXTINF:([\d.]+)/gm)].map((match) => Number(match[1])))
  return playlist.replace(/^#EXT-X-TARGETDURATION:\d+$/m, `#EXT-X-TARGETDURATION:${Math.max(1, Math.ceil(longest))}`)
}
