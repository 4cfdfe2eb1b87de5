import {captionsError, type CaptionCue, type CaptionSource} from './cue.js'

const TIMING = /^(\d{1,3}):([0-5]\d):([0-5]\d)[,.](\d{3}) --> (\d{1,3}):([0-5]\d):([0-5]\d)[,.](\d{3})(?:\s.*)?$/
const FIX = 'each cue is a number line, a "00:00:01,000 --> 00:00:02,500" line, its text, then a blank line'

function millis(h: string, m: string, s: string, ms: string): number {
  return ((Number(h) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms)
}

/** SubRip's inline markup (`<i>`, `<font color=…>`) and ASS position tags (`{\an8}`): dropped, the text kept. */
function plainText(lines: readonly string[]): string {
  return lines.join('\n').replace(/<[^>]*>/g, '').replace(/\{\\[^}]*\}/g, '')
}

/**
 * A strict SubRip parser, written here because the npm ones (subtitle, srt-parser-2) skip or guess
 * at what they cannot read and report no line numbers: an author needs the line to fix.
 */
export function parseSrt(text: string, source: CaptionSource): CaptionCue[] {
  const lines = text.split(/\r\n|\r|\n/)
  const cues: CaptionCue[] = []
  let at = 0
  const skipBlank = () => {
    while (at < lines.length && lines[at].trim() === '') at++
  }
  skipBlank()
  if (at >= lines.length) throw captionsError(source, 1, 'the file holds no cues (neither WebVTT, which starts with "WEBVTT", nor SubRip)', FIX)
  while (at < lines.length) {
    if (!/^\d+$/.test(lines[at].trim())) {
      throw captionsError(source, at + 1, `expected a cue number, found "${lines[at].slice(0, 40)}"`, FIX)
    }
    at++
    const timing = TIMING.exec(lines[at]?.trim() ?? '')
    if (!timing) throw captionsError(source, at + 1, `expected a cue timing such as "00:00:01,000 --> 00:00:02,500", found "${(lines[at] ?? '').slice(0, 60)}"`, FIX)
    const startMs = millis(timing[1], timing[2], timing[3], timing[4])
    const endMs = millis(timing[5], timing[6], timing[7], timing[8])
    if (endMs <= startMs) throw captionsError(source, at + 1, 'the cue ends before or when it starts', 'give it an end time after its start')
    at++
    const body: string[] = []
    while (at < lines.length && lines[at].trim() !== '') body.push(lines[at++])
    cues.push({startMs, endMs, text: plainText(body)})
    skipBlank()
  }
  return cues
}
