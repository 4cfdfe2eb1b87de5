import {EngineError} from '../errors/engine-error.js'
import {parseSrt} from './parse-srt.js'
import {parseWebVtt} from './parse-webvtt.js'
import type {CaptionCue, CaptionSource} from './cue.js'

/** A cue file larger than this is refused: an hour of dense subtitles is about 100 KB. */
export const MAX_CAPTION_BYTES = 2 * 1024 * 1024
export const MAX_CAPTION_CUES = 20_000

/**
 * Parses WebVTT (text starting with `WEBVTT`) or SRT (anything else), strictly: any problem is a
 * CAPTIONS_INVALID naming the source, the line and the fix.
 */
export function parseCaptions(text: string, source: CaptionSource): CaptionCue[] {
  const body = text.replace(/^\uFEFF/, '')
  const cues = body.startsWith('WEBVTT') ? parseWebVtt(body, source) : parseSrt(body, source)
  if (cues.length > MAX_CAPTION_CUES) {
    throw new EngineError('CAPTIONS_INVALID', `${source.label}: ${cues.length} cues, more than the ${MAX_CAPTION_CUES} a composition may show; split the video`, {
      file: source.label,
      cues: cues.length,
    })
  }
  return cues
}
