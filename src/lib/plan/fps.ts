import {EngineError} from '../errors/engine-error.js'

/** A frame rate kept as a reduced fraction so that 30000/1001 survives every hop exactly. */
export interface Fps {
  num: number
  den: number
}

export const MAX_FPS = 240

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b)
}

export function fpsValue(fps: Fps): number {
  return fps.num / fps.den
}

export function formatFps(fps: Fps): string {
  return fps.den === 1 ? String(fps.num) : `${fps.num}/${fps.den}`
}

/** Parses `30`, `"30"`, `"30000/1001"`; anything else, or a rate outside 1-240, is an INVALID_FLAG. */
export function parseFps(input: number | string, flag = '--fps'): Fps {
  const text = String(input).trim()
  const fail = (why: string) =>
    new EngineError(
      'INVALID_FLAG',
      `${flag}: "${text}" ${why}; use an integer from 1 to ${MAX_FPS} or a rational such as 30000/1001`,
      {flag, value: input},
    )
  const match = /^(\d+)(?:\/(\d+))?$/.exec(text)
  if (!match) throw fail('is not a frame rate')
  const num = Number(match[1])
  const den = match[2] === undefined ? 1 : Number(match[2])
  if (den === 0) throw fail('has a zero denominator')
  const value = num / den
  if (!(value >= 1 && value <= MAX_FPS)) throw fail(`is out of range (${value.toFixed(3)} frames/s)`)
  const d = gcd(num, den)
  return {num: num / d, den: den / d}
}

/** Frames needed to cover `durationSeconds`; a partial last frame still gets rendered. */
export function frameCount(durationSeconds: number, fps: Fps): number {
  return Math.max(1, Math.ceil((durationSeconds * fps.num) / fps.den - 1e-9))
}

/** Exact time of frame `index`: frame i shows the composition at t = i / fps. */
export function frameTime(index: number, fps: Fps): number {
  return (index * fps.den) / fps.num
}

/** The rate of a render that names none and whose root declares no `data-fps`. */
export const DEFAULT_FPS: Fps = {num: 30, den: 1}

/** Where a render's frame rate came from: an option (flag, config file, request, SDK), the root's `data-fps`, or the default. */
export type FpsSource = 'flag' | 'composition' | 'default'

/** The render's rate: an explicit option wins over the composition's declared `data-fps`, which wins over 30. */
export function chooseFps(option: number | string | undefined, declared: string | undefined): {fps: Fps; source: FpsSource} {
  if (option !== undefined) return {fps: parseFps(option), source: 'flag'}
  if (declared !== undefined) return {fps: parseDeclaredFps(declared), source: 'composition'}
  return {fps: DEFAULT_FPS, source: 'default'}
}

/** The root's `data-fps`: the forms and range of `--fps`; anything else is a COMPOSITION_INVALID naming the attribute. */
export function parseDeclaredFps(raw: string): Fps {
  try {
    return parseFps(raw, 'data-fps')
  } catch (error) {
    const message = (error as Error).message.replace(/^data-fps: "(.*?)"/, 'data-fps="$1" on the root composition')
    throw new EngineError('COMPOSITION_INVALID', `${message}; or leave it out to render at 30 (an --fps option wins over it)`, {attribute: 'data-fps', value: raw})
  }
}
