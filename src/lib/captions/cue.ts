import {EngineError} from '../errors/engine-error.js'

/** One timed caption: shown from `startMs` (inclusive) to `endMs` (exclusive), as plain text. */
export interface CaptionCue {
  startMs: number
  endMs: number
  /** Plain text, lines separated by `\n`; cue markup (`<b>`, `<v Name>`) already removed. */
  text: string
}

/** Where a caption text came from, for messages: a file's path or a variable's name. */
export interface CaptionSource {
  /** `captions.vtt`, or `variable "subs"`. */
  label: string
  /** The attribute or variable to change, for the fix. */
  field: string
}

/** The error for a problem at a line of a cue file: the file, the line, the problem and the fix. */
export function captionsError(source: CaptionSource, line: number, problem: string, fix: string): EngineError {
  return new EngineError('CAPTIONS_INVALID', `${source.label} line ${line}: ${problem}; ${fix} (${source.field})`, {file: source.label, line, field: source.field})
}
