import {EngineError} from '../lib/errors/engine-error.js'

/** `--time` as seconds from 0, refused with the flag, the value and an example otherwise. */
export function parseTimeFlag(text: string): number {
  const value = Number(text)
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) {
    throw new EngineError('INVALID_FLAG', `--time: "${text}" is not a time; give seconds from 0, such as 1.5`, {time: text})
  }
  return value
}
