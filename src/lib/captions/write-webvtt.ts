import type {CaptionCue} from './cue.js'

function timestamp(ms: number): string {
  const pad = (value: number, width = 2) => String(value).padStart(width, '0')
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}.${pad(ms % 1000, 3)}`
}

/** Cue text as WebVTT cue text: `&`, `<` and `>` escaped, no blank line (which would end the cue). */
function cueText(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .join('\n')
}

/** A WebVTT file of the cues, in order. */
export function writeWebVtt(cues: readonly CaptionCue[]): string {
  return ['WEBVTT', '', ...cues.flatMap((cue) => [`${timestamp(cue.startMs)} --> ${timestamp(cue.endMs)}`, cueText(cue.text) || ' ', ''])].join('\n')
}

/**
 * The cues of a stretch of the composition (`fromMs` to `toMs`), on that stretch's own clock: an
 * output that starts later (`--frames`) shows its cues from its own zero. Cues of several caption
 * elements are merged in start order; cues outside the stretch are dropped, others clipped to it.
 */
export function cuesForOutput(sets: readonly (readonly CaptionCue[])[], fromMs: number, toMs: number): CaptionCue[] {
  return sets
    .flat()
    .filter((cue) => cue.endMs > fromMs && cue.startMs < toMs)
    .map((cue) => ({startMs: Math.max(cue.startMs, fromMs) - fromMs, endMs: Math.min(cue.endMs, toMs) - fromMs, text: cue.text}))
    .sort((a, b) => a.startMs - b.startMs || a.endMs - b.endMs)
}
