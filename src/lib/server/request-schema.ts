import {z} from 'zod'
import {listFormats} from '../encode/format-registry.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {parseFps} from '../plan/fps.js'
import {parseRenderOptions, renderOptionsSchema, type RenderOptionsInput} from '../plan/render-options.js'

/** Render options a client may choose; everything else (output, browser, GPU) is the server's. */
export const CLIENT_OPTION_KEYS = ['format', 'fps', 'quality', 'crf', 'videoBitrate', 'workers', 'strictVariables', 'gifLoop'] as const

export type ClientOptionKey = (typeof CLIENT_OPTION_KEYS)[number]

/** Body of `POST /render/stream`. */
export const renderStreamBodySchema = renderOptionsSchema
  .pick({format: true, fps: true, quality: true, crf: true, videoBitrate: true, workers: true, strictVariables: true, gifLoop: true, variables: true})
  .extend({
    composition: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
  })
  .strict()

export type RenderStreamBody = z.infer<typeof renderStreamBodySchema>

export interface ParsedStreamBody {
  composition?: string
  html?: string
  options: RenderOptionsInput
  variables?: Record<string, unknown>
}

const describe = (key: string) => `body field "${key}"`

/**
 * Validates a stream request body once, at the door. Every failure is an INVALID_REQUEST that
 * names the field, so the client knows what to fix.
 */
export function parseStreamBody(body: unknown): ParsedStreamBody {
  const result = renderStreamBodySchema.safeParse(body)
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        return `${issue.keys.map(describe).join(', ')}: not accepted; the body takes composition or html, variables, and ${CLIENT_OPTION_KEYS.join(', ')}`
      }
      if (issue.path.length === 0) return `the body must be a JSON object (${issue.message})`
      const value = (body as Record<string, unknown>)[String(issue.path[0])]
      return `${describe(issue.path.join('.'))}: ${JSON.stringify(value)?.slice(0, 80)} is invalid (${issue.message})`
    })
    throw new EngineError('INVALID_REQUEST', problems.join('\n'), {issues: result.error.issues})
  }
  const {composition, html, variables, ...options} = result.data
  if ((composition === undefined) === (html === undefined)) {
    throw new EngineError('INVALID_REQUEST', 'the body needs exactly one of "composition" (a path inside the server root) or "html" (inline markup)')
  }
  checkOptions(options)
  return {composition, html, options, variables}
}

function checkOptions(options: RenderOptionsInput): void {
  try {
    parseRenderOptions(options, describe)
    if (options.fps !== undefined) parseFps(options.fps, describe('fps'))
  } catch (error) {
    if (isEngineError(error)) throw new EngineError('INVALID_REQUEST', error.message, error.details)
    throw error
  }
  const formats = listFormats().map((format) => format.name)
  if (options.format !== undefined && !formats.includes(options.format)) {
    throw new EngineError('INVALID_REQUEST', `${describe('format')}: "${options.format}" is not a known format; use one of ${formats.join(', ')}`, {
      format: options.format,
    })
  }
}
