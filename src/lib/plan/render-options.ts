import {z} from 'zod'
import {HDR_FORMAT} from '../encode/hdr-output.js'
import {EngineError} from '../errors/engine-error.js'
import {PROFILE_NAMES} from '../profile/render-profile.js'
import {QUALITIES} from './render-plan.js'

export const MAX_WORKERS = 24
export const BUILTIN_FORMATS = ['mp4', 'mov', 'webm', 'gif', 'png-sequence'] as const

const bitrate = z
  .string()
  .regex(/^\d+(\.\d+)?[MmKk]$/, 'must be a size such as 8M or 2500k')

/**
 * Every option a render accepts, whichever door it came through (flags, config file, server body,
 * SDK). Values are validated here once; defaults are applied by `withRenderDefaults`.
 */
export const renderOptionsSchema = z
  .object({
    output: z.string().min(1),
    format: z.string().min(1),
    fps: z.union([z.number(), z.string()]),
    gifLoop: z.number().int().min(0).max(65535),
    quality: z.enum(QUALITIES as [string, ...string[]]),
    crf: z.number().int().min(0).max(51),
    videoBitrate: bitrate,
    videoFrameFormat: z.enum(['auto', 'jpg', 'png']),
    workers: z.union([z.literal('auto'), z.number().int().min(1).max(MAX_WORKERS)]),
    maxConcurrentRenders: z.number().int().min(1).max(10),
    batch: z.string().min(1),
    batchConcurrency: z.number().int().min(1),
    batchFailFast: z.boolean(),
    variables: z.record(z.string(), z.unknown()),
    variablesFile: z.string().min(1),
    strictVariables: z.boolean(),
    gpu: z.boolean(),
    browserGpu: z.boolean(),
    browserPath: z.string().min(1),
    hdr: z.boolean(),
    sdr: z.boolean(),
    docker: z.boolean(),
    profile: z.enum(PROFILE_NAMES),
    quiet: z.boolean(),
    json: z.boolean(),
  })
  .partial()
  .strict()

export type RenderOptionsInput = z.infer<typeof renderOptionsSchema>

export const RENDER_DEFAULTS = {
  format: 'mp4',
  fps: 30,
  gifLoop: 0,
  quality: 'standard',
  videoFrameFormat: 'auto',
  workers: 'auto',
  maxConcurrentRenders: 2,
  batchConcurrency: 1,
  batchFailFast: false,
  strictVariables: false,
  gpu: false,
  browserGpu: true,
  hdr: false,
  sdr: false,
  docker: false,
  quiet: false,
  json: false,
} as const satisfies RenderOptionsInput

/** camelCase option key -> the flag a CLI user types. */
export function flagName(key: string): string {
  return '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
}

/**
 * Validates options from one source. `describe` turns a key into how the user wrote it, so a
 * config file error names the key and a CLI error names the flag.
 */
export function parseRenderOptions(
  input: unknown,
  describe: (key: string) => string = flagName,
): RenderOptionsInput {
  const result = renderOptionsSchema.safeParse(input)
  if (result.success) {
    assertCompatible(result.data, describe)
    return result.data
  }
  const problems = result.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      return `${issue.keys.map((k) => describe(k)).join(', ')}: not a render option`
    }
    const key = String(issue.path[0] ?? '')
    const value = key && typeof input === 'object' && input ? (input as Record<string, unknown>)[key] : undefined
    return `${describe(key)}: ${JSON.stringify(value)} is invalid (${issue.message})`
  })
  throw new EngineError('INVALID_FLAG', problems.join('\n'), {issues: result.error.issues})
}

function assertCompatible(options: RenderOptionsInput, describe: (key: string) => string): void {
  if (options.crf !== undefined && options.videoBitrate !== undefined) {
    throw new EngineError(
      'INVALID_FLAG',
      `${describe('crf')} and ${describe('videoBitrate')} cannot be combined: choose a constant quality (crf) or a target bitrate`,
      {crf: options.crf, videoBitrate: options.videoBitrate},
    )
  }
  if (options.hdr && options.sdr) {
    throw new EngineError('INVALID_FLAG', `${describe('hdr')} and ${describe('sdr')} cannot be combined: pick one`)
  }
  if (options.hdr && options.format !== undefined && options.format !== HDR_FORMAT) {
    throw new EngineError(
      'INVALID_FLAG',
      `${describe('hdr')} needs ${describe('format')} ${HDR_FORMAT} (H.265 10-bit BT.2020), not ${options.format}: use ${describe('format')} ${HDR_FORMAT} or drop ${describe('hdr')}`,
      {hdr: true, format: options.format},
    )
  }
  if (options.hdr && options.gpu) {
    throw new EngineError(
      'INVALID_FLAG',
      `${describe('hdr')} cannot be combined with ${describe('gpu')}: the hardware encoders write 8-bit H.264; drop ${describe('gpu')} to encode HDR with libx265`,
      {hdr: true, gpu: true},
    )
  }
}
