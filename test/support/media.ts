import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

const exec = promisify(execFile)

export async function ffprobe(file: string, args: readonly string[]): Promise<Record<string, unknown>> {
  const {stdout} = await exec('ffprobe', ['-v', 'error', '-of', 'json', ...args, file], {maxBuffer: 64 * 1024 * 1024})
  return JSON.parse(stdout) as Record<string, unknown>
}

export interface ProbedStream {
  codec_name: string
  pix_fmt: string
  width: number
  height: number
  r_frame_rate: string
  avg_frame_rate: string
  nb_read_frames?: string
  tags?: Record<string, string>
  profile?: string
  color_space?: string
  color_transfer?: string
  color_primaries?: string
  color_range?: string
}

export async function probeVideoStream(file: string, countFrames = true): Promise<ProbedStream> {
  const result = await ffprobe(file, ['-select_streams', 'v:0', ...(countFrames ? ['-count_frames'] : []), '-show_streams'])
  return (result.streams as ProbedStream[])[0]
}

export interface ProbedPacket {
  pts: number
  dts: number
  duration: number
  flags: string
}

export async function probePackets(file: string): Promise<ProbedPacket[]> {
  const result = await ffprobe(file, ['-select_streams', 'v:0', '-show_entries', 'packet=pts,dts,duration,flags'])
  return result.packets as ProbedPacket[]
}

/** One md5 per decoded frame (`-f framemd5`), in presentation order. */
export async function decodedFrameHashes(file: string, decoderArgs: readonly string[] = []): Promise<string[]> {
  const {stdout} = await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', ...decoderArgs, '-i', file, '-map', '0:v', '-f', 'framemd5', '-'], {
    maxBuffer: 64 * 1024 * 1024,
  })
  return stdout
    .split('\n')
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => line.split(',').at(-1)!.trim())
}

/** Raw bytes of one decoded frame after `filter` (e.g. `alphaextract`). */
export async function decodeFrame(file: string, index: number, filter: string, decoderArgs: readonly string[] = []): Promise<Buffer> {
  const {stdout} = await exec(
    'ffmpeg',
    ['-hide_banner', '-loglevel', 'error', ...decoderArgs, '-i', file, '-vf', `select=eq(n\\,${index}),${filter}`, '-frames:v', '1', '-f', 'rawvideo', '-'],
    {encoding: 'buffer', maxBuffer: 64 * 1024 * 1024},
  )
  return stdout
}

export interface Rgba {
  r: number
  g: number
  b: number
  a: number
}

/** The RGBA colour of pixel (x, y) in decoded frame `index` (webm alpha needs the libvpx decoder). */
export async function pixelAt(file: string, index: number, x: number, y: number, decoderArgs: readonly string[] = []): Promise<Rgba> {
  const frame = await decodeFrame(file, index, `format=rgba,crop=1:1:${x}:${y}`, decoderArgs)
  if (frame.length < 4) throw new Error(`${file} has no frame ${index}`)
  return {r: frame[0], g: frame[1], b: frame[2], a: frame[3]}
}

/** Asserts-friendly check: every channel within `tolerance` of the expected colour. */
export function near(actual: Rgba, expected: Partial<Rgba>, tolerance = 24): boolean {
  return (Object.keys(expected) as (keyof Rgba)[]).every((channel) => Math.abs(actual[channel] - expected[channel]!) <= tolerance)
}

/** Loop count from a GIF's NETSCAPE2.0 application extension (absent means play once). */
export function gifLoopCount(bytes: Buffer): number | undefined {
  const at = bytes.indexOf('NETSCAPE2.0')
  return at < 0 ? undefined : bytes.readUInt16LE(at + 11 + 2)
}
