import {z} from 'zod'
import {getFormat} from '../encode/format-registry.js'
import {EngineError, isEngineError} from '../errors/engine-error.js'
import {parseFps} from '../plan/fps.js'
import {parseRenderOptions, renderOptionsSchema, type RenderOptionsInput} from '../plan/render-options.js'

/** Render options a client may choose; everything else (output, browser, GPU) is the server's. */
export const CLIENT_OPTION_KEYS = ['format', 'fps', 'quality', 'crf', 'videoBitrate', 'workers', 'strictVariables', 'strictFonts', 'strict', 'gifLoop', 'hlsSegmentSeconds', 'poster', 'posterFormat', 'scale', 'frames', 'network', 'pageErrors'] as const

/**
 * A file name stem only: no separators, no leading dot (never a hidden or partial file), nothing a
 * playlist would have to escape; it names files inside the request's own output directory.
 */
export const outputNameSchema = z.string().regex(/^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/, 'must be 1-100 letters, digits, ".", "_" or "-", not starting with "."')

/** Variables one request may set: far more than any composition declares, far fewer than a flood. */
export const MAX_VARIABLE_KEYS = 1000

export type ClientOptionKey = (typeof CLIENT_OPTION_KEYS)[number]

/** Body of `POST /render/stream`. */
export const renderStreamBodySchema = renderOptionsSchema
  .pick({
    format: true,
    fps: true,
    quality: true,
    crf: true,
    videoBitrate: true,
    workers: true,
    strictVariables: true,
    strictFonts: true,
    strict: true,
    gifLoop: true,
    hlsSegmentSeconds: true,
    poster: true,
    posterFormat: true,
    scale: true,
    frames: true,
    network: true,
    pageErrors: true,
    cache: true,
    variables: true,
  })
  .extend({
    composition: z.string().min(1).optional(),
    html: z.string().min(1).optional(),
    /** Called when the render ends; the server signs it with its --webhook-secret. */
    webhook: z.object({url: z.string(), /** Echoed as the webhook body's "data" (a JSON object, at most 4 KB). */ data: z.unknown().optional()}).strict().optional(),
    /** Cancel the render when this stream's connection closes (default: it keeps rendering; resume or DELETE). */
    cancelOnDisconnect: z.boolean().optional(),
    /** The output's file name without extension (default: the composition's): the names of an HLS playlist's segments start with it. */
    outputName: outputNameSchema.optional(),
  })
  .strict()

export type RenderStreamBody = z.infer<typeof renderStreamBodySchema>

export interface ParsedStreamBody {
  composition?: string
  html?: string
  options: RenderOptionsInput
  variables?: Record<string, unknown>
  /** Checked against the server's webhook policy by the route (see webhookTarget). */
  webhookUrl?: string
  /** Echoed in the webhook body; checked with the URL by the route (parseWebhookData). */
  webhookData?: unknown
  cancelOnDisconnect: boolean
  outputName?: string
}

export const describeBodyField = (key: string) => `body field "${key}"`
const describe = describeBodyField

/** One INVALID_REQUEST naming every field of `body` that failed, and what the body accepts. */
export function invalidBody(issues: readonly z.core.$ZodIssue[], body: unknown, accepted: string): EngineError {
  const problems = issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') return `${issue.keys.map(describe).join(', ')}: not accepted; the body takes ${accepted}`
    if (issue.path.length === 0) return `the body must be a JSON object (${issue.message})`
    const value = (body as Record<string, unknown>)[String(issue.path[0])]
    return `${describe(issue.path.join('.'))}: ${JSON.stringify(value)?.slice(0, 80)} is invalid (${issue.message})`
  })
  return new EngineError('INVALID_REQUEST', problems.join('\n'), {issues})
}

/**
 * Validates a stream request body once, at the door. Every failure is an INVALID_REQUEST that
 * names the field, so the client knows what to fix.
 */
export function parseStreamBody(body: unknown): ParsedStreamBody {
  const result = renderStreamBodySchema.safeParse(body)
  if (!result.success) throw invalidBody(result.error.issues, body, `composition or html, variables, webhook, cancelOnDisconnect, outputName, and ${CLIENT_OPTION_KEYS.join(', ')}`)
  const {composition, html, variables, webhook, cancelOnDisconnect = false, outputName, ...options} = result.data
  assertVariableCount(variables)
  if ((composition === undefined) === (html === undefined)) {
    throw new EngineError('INVALID_REQUEST', 'the body needs exactly one of "composition" (a path inside the server root) or "html" (inline markup)')
  }
  checkOptions(options)
  return {composition, html, options, variables, webhookUrl: webhook?.url, webhookData: webhook?.data, cancelOnDisconnect, ...(outputName !== undefined && {outputName})}
}

/** Throws LIMIT_EXCEEDED when a request sets more variables than any request may. */
export function assertVariableCount(variables: Record<string, unknown> | undefined): void {
  const keyCount = variables === undefined ? 0 : Object.keys(variables).length
  if (keyCount <= MAX_VARIABLE_KEYS) return
  throw new EngineError(
    'LIMIT_EXCEEDED',
    `${describe('variables')}: ${keyCount} keys; a request may set at most ${MAX_VARIABLE_KEYS} variables (send only the ones the composition declares)`,
    {field: 'variables', value: keyCount, limit: MAX_VARIABLE_KEYS},
  )
}

function checkOptions(options: RenderOptionsInput): void {
  try {
    parseRenderOptions(options, describe)
    if (options.fps !== undefined) parseFps(options.fps, describe('fps'))
    if (options.format !== undefined) getFormat(options.format, describe('format'))
  } catch (error) {
    if (isEngineError(error)) throw new EngineError('INVALID_REQUEST', error.message, error.details)
    throw error
  }
}
