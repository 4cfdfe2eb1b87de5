import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import {oneOf} from '../errors/one-of.js'
import {parseFrameSelection} from './frame-range.js'
import {QUALITIES} from './render-plan.js'
import {MAX_KEYFRAME_INTERVAL_SECONDS, MIN_KEYFRAME_INTERVAL_SECONDS} from './segment-grid.js'

export const MAX_WORKERS = 24
export const MIN_SCALE = 0.1
export const MAX_SCALE = 16

/** The render profiles `--profile` accepts (their definitions live in profile/). */
export const PROFILE_NAMES = ['deterministic'] as const
export type ProfileName = (typeof PROFILE_NAMES)[number]

/** `--video-frame-format`: how source-video frames are extracted (auto: png for alpha sources). */
export const VIDEO_FRAME_FORMATS = ['auto', 'jpg', 'png'] as const
/** How `--batch` is read: otherwise its extension says (see batch/rows/batch-format). */
export const BATCH_FORMATS = ['json', 'jsonl', 'csv', 'tsv'] as const
/** `--page-errors`: an uncaught page error fails the render, or is a `page-error` warning and the render goes on. */
export const PAGE_ERROR_MODES = ['fail', 'warn'] as const
export type PageErrorMode = (typeof PAGE_ERROR_MODES)[number]

/** Image formats of a still (`engine still`) and of a render's poster frame. */
export const STILL_FORMATS = ['png', 'jpeg', 'webp'] as const

/** The one format that carries HDR (H.265 10-bit BT.2020 in MP4). */
export const HDR_FORMAT = 'mp4'
export const BUILTIN_FORMATS = ['mp4', 'mov', 'webm', 'gif', 'png-sequence', 'hls'] as const

const bitrate = z
  .string()
  .regex(/^\d+(\.\d+)?[MmKk]$/, 'must be a size such as 8M or 2500k')

const keyframeIntervalRange = `must be a number of seconds from ${MIN_KEYFRAME_INTERVAL_SECONDS} to ${MAX_KEYFRAME_INTERVAL_SECONDS}, such as 2 or 0.5`
/** Seconds between keyframes; shared with the distributed render config. */
export const keyframeIntervalSchema = z
  .number({message: keyframeIntervalRange})
  .min(MIN_KEYFRAME_INTERVAL_SECONDS, keyframeIntervalRange)
  .max(MAX_KEYFRAME_INTERVAL_SECONDS, keyframeIntervalRange)

const hlsSegmentRange = `must be a number of seconds from ${MIN_KEYFRAME_INTERVAL_SECONDS} to ${MAX_KEYFRAME_INTERVAL_SECONDS}, such as 6 or 2`
export const hlsSegmentSecondsSchema = z
  .number({message: hlsSegmentRange})
  .min(MIN_KEYFRAME_INTERVAL_SECONDS, hlsSegmentRange)
  .max(MAX_KEYFRAME_INTERVAL_SECONDS, hlsSegmentRange)

/** `--frames`: `A-B`, `A-` or `N` (a number too, in a config file or request body); see frame-range.ts. */
export const framesSchema = z.union([z.string(), z.number()], {message: 'must be a frame range such as 30-59, 30- or 30'}).superRefine((value, context) => {
  const selection = parseFrameSelection(value)
  if ('problem' in selection) context.addIssue({code: 'custom', message: selection.problem})
})

/**
 * Every option a render accepts, whichever door it came through (flags, config file, server body,
 * SDK). Values are validated here once; defaults are applied by `withRenderDefaults`.
 */
export const renderOptionsSchema = z
  .object({
    output: z.string().min(1),
    format: z.string().min(1),
    /** Absent: the root's `data-fps`, else 30 (chooseFps). */
    fps: z.union([z.number(), z.string()]),
    gifLoop: z.number().int().min(0).max(65535),
    quality: z.enum(QUALITIES as [string, ...string[]]),
    crf: z.number().int().min(0).max(51),
    videoBitrate: bitrate,
    keyframeInterval: keyframeIntervalSchema,
    /** HLS: seconds of video per media segment (the render's keyframe interval unless that is set). */
    hlsSegmentSeconds: hlsSegmentSecondsSchema,
    /** Also write the composition's captions beside the output as `<output name>.vtt`. */
    captionsSidecar: z.boolean(),
    /** Also embed the composition's captions as a subtitle track (mp4, mov: mov_text; webm: WebVTT). */
    captionsTrack: z.boolean(),
    videoFrameFormat: z.enum(VIDEO_FRAME_FORMATS),
    workers: z.union([z.literal('auto'), z.number().int().min(1).max(MAX_WORKERS)], {message: `must be a whole number from 1 to ${MAX_WORKERS}, or auto`}),
    maxConcurrentRenders: z.number().int().min(1).max(10),
    batch: z.string().min(1),
    batchFormat: z.enum(BATCH_FORMATS),
    /** Rows at once; `auto` chooses from the idle cores and free memory (batchLayout). */
    batchConcurrency: z.union([z.literal('auto'), z.number().int().min(1)], {message: 'must be a whole number of rows, 1 or more, or auto'}),
    batchFailFast: z.boolean(),
    /** What a row (or render) whose text does not fit becomes: batches check with `warn` when unset, a single render only when set. */
    onOverflow: z.enum(['warn', 'fail', 'skip']),
    /** Preflight and the check pass on every row; nothing rendered. */
    checkOnly: z.boolean(),
    variables: z.record(z.string(), z.unknown()),
    variablesFile: z.string().min(1),
    strictVariables: z.boolean(),
    strictFonts: z.boolean(),
    /** Everything as written: strict variables and fonts, and a root without data-duration is refused. */
    strict: z.boolean(),
    /** Public http(s) URLs the page names are fetched (false: `--no-network`, hermetic renders). */
    network: z.boolean(),
    /** Reuse an identical earlier output from the render cache and store this one (false: `--no-cache`). */
    cache: z.boolean(),
    /** The page may reach loopback and private addresses: only for trusted compositions. */
    allowPrivateNetwork: z.boolean(),
    pageErrors: z.enum(PAGE_ERROR_MODES),
    gpu: z.boolean(),
    browserGpu: z.boolean(),
    browserPath: z.string().min(1),
    hdr: z.boolean(),
    sdr: z.boolean(),
    docker: z.boolean(),
    profile: z.enum(PROFILE_NAMES),
    quiet: z.boolean(),
    json: z.boolean(),
    /** Seconds: also write the frame on screen then as `<output>.poster.<ext>`. */
    poster: z.number().finite().min(0),
    /** Device scale factor: the output is width·scale x height·scale, drawn at that density. */
    scale: z.number().min(MIN_SCALE).max(MAX_SCALE),
    posterFormat: z.enum(STILL_FORMATS),
    /** Only these frames of the composition (0-based, inclusive): `A-B`, `A-` or `N`. */
    frames: framesSchema,
  })
  .partial()
  .strict()

export type RenderOptionsInput = z.infer<typeof renderOptionsSchema>

export const RENDER_DEFAULTS = {
  format: 'mp4',
  gifLoop: 0,
  quality: 'standard',
  videoFrameFormat: 'auto',
  workers: 'auto',
  maxConcurrentRenders: 2,
  batchConcurrency: 1,
  batchFailFast: false,
  strictVariables: false,
  strictFonts: false,
  strict: false,
  pageErrors: 'fail',
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
    if (issue.code === 'invalid_value' && issue.values.length > 1) {
      return `${describe(key)} must be ${oneOf(issue.values.map(String))}, not ${JSON.stringify(value)}`
    }
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
  if (options.variablesFile === '-' && options.batch === '-') {
    throw new EngineError('INVALID_FLAG', `${describe('variablesFile')} - and ${describe('batch')} - both read standard input: give one of them a file`, {variablesFile: '-', batch: '-'})
  }
  if (options.hdr && options.gpu) {
    throw new EngineError(
      'INVALID_FLAG',
      `${describe('hdr')} cannot be combined with ${describe('gpu')}: the hardware encoders write 8-bit H.264; drop ${describe('gpu')} to encode HDR with libx265`,
      {hdr: true, gpu: true},
    )
  }
}

/** Render options with every default filled in (resolveRenderOptions). */
export type ResolvedRenderOptions = RenderOptionsInput & Required<Pick<RenderOptionsInput, keyof typeof RENDER_DEFAULTS>>
