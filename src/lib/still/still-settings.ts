import {extname} from 'node:path'
import {z} from 'zod'
import {EngineError, type ErrorCode} from '../errors/engine-error.js'
import type {Fps} from '../plan/fps.js'
import {STILL_FORMATS} from '../plan/render-options.js'

export type StillFormat = (typeof STILL_FORMATS)[number]

/** Quality when none is given: the standard preset's JPEG quality. */
export const DEFAULT_STILL_QUALITY = 92

const EXTENSIONS: Record<string, StillFormat> = {'.png': 'png', '.jpg': 'jpeg', '.jpeg': 'jpeg', '.webp': 'webp'}

/** Which frame and how to encode it, whichever door it came through (flags, body, SDK). */
export const stillSettingsSchema = z
  .object({
    frame: z.number().int().min(0),
    time: z.number().finite().min(0),
    quality: z.number().int().min(0).max(100),
    format: z.enum(STILL_FORMATS),
  })
  .partial()
  .strict()

export type StillSettings = z.infer<typeof stillSettingsSchema>

/**
 * Validates still settings once at the door; `describe` names a key as the caller wrote it
 * (`--frame`, `body field "frame"`). Frame and time are alternatives.
 */
export function parseStillSettings(input: unknown, describe: (key: string) => string, code: ErrorCode = 'INVALID_FLAG'): StillSettings {
  const result = stillSettingsSchema.safeParse(input)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') return `${issue.keys.map(describe).join(', ')}: not a still option`
      const key = String(issue.path[0] ?? '')
      const value = typeof input === 'object' && input ? (input as Record<string, unknown>)[key] : undefined
      return `${describe(key)}: ${JSON.stringify(value)} is invalid (${issue.message})`
    })
    throw new EngineError(code, problems.join('\n'), {issues: result.error.issues})
  }
  if (result.data.frame !== undefined && result.data.time !== undefined) {
    throw new EngineError(code, `${describe('frame')} and ${describe('time')} cannot be combined: pick the frame by number or by time`)
  }
  return result.data
}

/** The image format an output path asks for by its extension. */
export function stillFormatOf(output: string, describe: string, code: ErrorCode = 'INVALID_FLAG'): StillFormat {
  const format = EXTENSIONS[extname(output).toLowerCase()]
  if (!format) {
    throw new EngineError(code, `${describe}: "${output}" must end in .png, .jpg, .jpeg or .webp (the image format follows the extension)`, {output})
  }
  return format
}

export function stillExtension(format: StillFormat): string {
  return format === 'jpeg' ? '.jpg' : `.${format}`
}

/**
 * The frame a still shows: `frame` itself, or the frame on screen at `time`, exactly as a render
 * samples it (frame i covers i/fps <= t < (i+1)/fps). Default frame 0.
 */
export function stillFrame(settings: Pick<StillSettings, 'frame' | 'time'>, fps: Fps): number {
  if (settings.frame !== undefined) return settings.frame
  if (settings.time === undefined) return 0
  return Math.floor((settings.time * fps.num) / fps.den + 1e-9)
}
