import {z} from 'zod'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {parseFps} from '../plan/fps.js'
import {parseRenderOptions, renderOptionsSchema, type RenderOptionsInput} from '../plan/render-options.js'
import {parseStillSettings, stillSettingsSchema, type StillSettings} from '../still/still-settings.js'
import {assertVariableCount, describeBodyField, invalidBody} from './request-schema.js'

/** Body of `POST /still`: the composition, its variables, and which frame as which image. */
export const stillBodySchema = renderOptionsSchema
  .pick({fps: true, strictVariables: true, variables: true, scale: true, network: true})
  .merge(stillSettingsSchema)
  .extend({
    composition: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
  })
  .strict()

export interface ParsedStillBody {
  composition?: string
  html?: string
  options: RenderOptionsInput
  still: StillSettings
  variables?: Record<string, unknown>
}

const describe = describeBodyField

/** Validates a still request once, at the door; every failure is an INVALID_REQUEST naming the field. */
export function parseStillBody(body: unknown): ParsedStillBody {
  const result = stillBodySchema.safeParse(body)
  if (!result.success) {
    throw invalidBody(result.error.issues, body, 'composition or html, variables, fps, strictVariables, scale, frame or time, format (png, jpeg, webp) and quality')
  }
  const {composition, html, variables, frame, time, quality, format, ...options} = result.data
  assertVariableCount(variables)
  if ((composition === undefined) === (html === undefined)) {
    throw new EngineError('INVALID_REQUEST', 'the body needs exactly one of "composition" (a path inside the server root) or "html" (inline markup)')
  }
  try {
    parseRenderOptions(options, describe)
    if (options.fps !== undefined) parseFps(options.fps, describe('fps'))
    const still = parseStillSettings({frame, time, quality, format: format ?? 'png'}, describe, 'INVALID_REQUEST')
    return {composition, html, options, still, variables}
  } catch (error) {
    if (isEngineError(error) && error.code !== 'INVALID_REQUEST') throw new EngineError('INVALID_REQUEST', error.message, error.details)
    throw error
  }
}
