import {z} from 'zod'
import {QUALITIES} from 'html-video-engine/internal/lib/plan/render-plan.js'
import {framesSchema, hlsSegmentSecondsSchema, keyframeIntervalSchema, MAX_SCALE, MIN_SCALE, PAGE_ERROR_MODES, STILL_FORMATS} from 'html-video-engine/internal/lib/plan/render-options.js'
import {stillSettingsSchema} from 'html-video-engine/internal/lib/still/still-settings.js'
import {siteEntrySchema, siteIdSchema} from './site-address.js'
import {storageKeySchema} from 'html-video-engine/internal/lib/render/storage-key.js'
import {ON_OVERFLOW} from 'html-video-engine/internal/lib/render/text-findings.js'
import {batchIdSchema} from './batch/batch-ids.js'
import {executionEndedEventSchema} from './runtime/execution-end-rule.js'
import {MAX_RENDER_TIMEOUT_SECONDS, MIN_RENDER_TIMEOUT_SECONDS} from './runtime/render-timeout.js'
import {bucketNameSchema, deleteAfterSchema, downloadNameSchema} from './output-settings.js'
import type {RenderOutcome} from './render-outcome.js'

const positiveInt = z.number().int().min(1)

/**
 * Settings of one distributed render (the SDK's `config`). Chunk tuning rides along, so one object
 * describes the render completely. `hdr` is accepted by the schema only to be refused with a
 * message (see validateConfig): HDR mp4 is rendered in-process only.
 */
export const renderConfigSchema = z
  .object({
    fps: z.union([z.number(), z.string()]).optional(),
    width: positiveInt.optional(),
    height: positiveInt.optional(),
    format: z.string().min(1).optional(),
    variables: z.record(z.string(), z.unknown()).optional(),
    quality: z.enum(QUALITIES as [string, ...string[]]).optional(),
    crf: z.number().int().min(0).max(51).optional(),
    videoBitrate: z
      .string()
      .regex(/^\d+(\.\d+)?[MmKk]$/, 'must be a size such as 8M or 2500k')
      .optional(),
    keyframeInterval: keyframeIntervalSchema.optional(),
    gifLoop: z.number().int().min(0).max(65535).optional(),
    /** HLS: seconds per media segment, as `engine render --hls-segment-seconds`. */
    hlsSegmentSeconds: hlsSegmentSecondsSchema.optional(),
    /** The composition's captions as a subtitle track (mp4, mov, webm), as `engine render --captions-track`. */
    captionsTrack: z.boolean().optional(),
    /** The composition's captions as WebVTT beside the output (`<output name>.vtt`), as `engine render --captions-sidecar`. */
    captionsSidecar: z.boolean().optional(),
    /** Only these frames (`A-B`, `A-` or `N`, as `engine render --frames`); chunks are planned inside them. */
    frames: framesSchema.optional(),
    /** Device scale factor, as `engine render --scale`: the output is width·scale x height·scale. */
    scale: z.number().min(MIN_SCALE).max(MAX_SCALE).optional(),
    /** Seconds: also store the frame on screen then beside the output (`<output>.poster.<ext>`), as `engine render --poster`. */
    poster: z.number().finite().min(0).optional(),
    posterFormat: z.enum(STILL_FORMATS).optional(),
    /** A font that falls back is an error before any frame is captured, as `engine render --strict-fonts`. */
    strictFonts: z.boolean().optional(),
    /** `warn`: an uncaught page error is a `page-error` warning of the render and the chunks go on, as `engine render --page-errors warn` (default `fail`). */
    pageErrors: z.enum(PAGE_ERROR_MODES).optional(),
    hdr: z.boolean().optional(),
    chunkSize: positiveInt.optional(),
    maxParallelChunks: positiveInt.optional(),
    targetChunkFrames: positiveInt.optional(),
    /** Capture workers in each chunk (default: the function's vCPUs, at most one per segment of the chunk). */
    concurrencyPerChunk: z.number().int().min(1).max(16).optional(),
    /** Another bucket for the output (the function's role must be granted it: `lambda deploy --output-bucket`). */
    outputBucket: bucketNameSchema.optional(),
    /** The file name a browser saves the output under: its Content-Disposition, also on presigned URLs. */
    downloadName: downloadNameSchema.optional(),
    /** The output is tagged so that the bucket's lifecycle rules delete it this long after it was written. */
    deleteAfter: deleteAfterSchema.optional(),
    /** An object already at the output key (another render's output) may be replaced; without it the render fails with OUTPUT_EXISTS. */
    overwrite: z.boolean().optional(),
    /** The check pass before the render (text that does not fit), as `engine render --batch --on-overflow`: warn, fail the render, or skip it. */
    onOverflow: z.enum(ON_OVERFLOW).optional(),
    /** The check pass only, as `--check-only`: the render ends after it, skipped, with its findings. */
    checkOnly: z.boolean().optional(),
    /** Reuse an identical earlier render from the bucket's `cache/` and store this one there: true or false; default on unless the function's ENGINE_RENDER_CACHE is off. */
    cache: z.boolean().optional(),
    /** Seconds from the execution's start after which the render fails with TIMED_OUT (default: from its chunk plan). */
    timeoutSeconds: z.number().int().min(MIN_RENDER_TIMEOUT_SECONDS).max(MAX_RENDER_TIMEOUT_SECONDS).optional(),
  })
  .strict()

export type RenderConfig = z.infer<typeof renderConfigSchema>

/** The render options a config sets (the rest keep engine render's defaults). */
export function renderOptionsOf(config: RenderConfig) {
  const {format, fps, quality, crf, videoBitrate, keyframeInterval, gifLoop, hlsSegmentSeconds, captionsTrack, captionsSidecar, frames, scale, pageErrors} = config
  return {format, fps, quality, crf, videoBitrate, keyframeInterval, gifLoop, hlsSegmentSeconds, captionsTrack, captionsSidecar, frames, scale, pageErrors}
}

/** What `renderToLambda` returns and what a site upload yields. */
export interface SiteHandle {
  siteId: string
  bucketName: string
  /** The composition file inside the site (default index.html). */
  entry: string
}

const renderIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,80}$/, 'must be 1-80 letters, digits, dashes or underscores')

/** The workflow execution input: ids and keys only, so that it stays far below 256 KiB. */
export const renderInputSchema = z.object({
  renderId: renderIdSchema,
  bucketName: z.string().min(3),
  siteId: siteIdSchema,
  entry: siteEntrySchema,
  outputKey: storageKeySchema,
  config: renderConfigSchema,
})

export type RenderInput = z.infer<typeof renderInputSchema>

/**
 * One still (`engine lambda still`): the frame and image settings of `engine still`, the render
 * settings that apply to one frame, and where the image goes. Invoked directly, no workflow.
 */
export const stillInputSchema = z
  .object({
    bucketName: z.string().min(3),
    siteId: siteIdSchema,
    entry: siteEntrySchema,
    outputKey: storageKeySchema,
    config: renderConfigSchema.pick({fps: true, variables: true, scale: true, strictFonts: true, pageErrors: true, outputBucket: true, downloadName: true, deleteAfter: true, overwrite: true}).extend(stillSettingsSchema.shape).strict(),
  })
  .strict()

export type StillInput = z.infer<typeof stillInputSchema>

const chunkSchema = z.object({index: z.number().int().min(0), start: z.number().int().min(0), end: z.number().int().min(1)})
export type ChunkItem = z.infer<typeof chunkSchema>

/** The one Lambda function's events, dispatched on `action`. */
export const handlerEventSchema = z.discriminatedUnion('action', [
  z.object({action: z.literal('plan'), render: renderInputSchema, executionStartedAt: z.string().max(64).optional()}),
  z.object({action: z.literal('renderChunk'), renderId: renderIdSchema, bucketName: z.string().min(3), chunk: chunkSchema}),
  z.object({action: z.literal('still'), still: stillInputSchema}),
  z.object({action: z.literal('assemble'), renderId: renderIdSchema, bucketName: z.string().min(3)}),
  z.object({
    action: z.literal('notifyFailure'),
    renderId: renderIdSchema,
    bucketName: z.string().min(3),
    /** What the state machine's Catch caught. */
    failure: z.object({Error: z.string().max(1024).optional(), Cause: z.string().max(65_536).optional()}),
  }),
  z.object({action: z.literal('finishBatch'), batchId: batchIdSchema, bucketName: z.string().min(3), run: z.number().int().min(1), startedAt: z.string().max(64).optional()}),
  /** A batch row has ended (its record is written): its webhook call, with the row's data. */
  z.object({action: z.literal('notifyRow'), batchId: batchIdSchema, bucketName: z.string().min(3), index: z.number().int().min(0), data: z.record(z.string(), z.unknown()).default({})}),
  executionEndedEventSchema,
])

export type HandlerEvent = z.infer<typeof handlerEventSchema>
export type PlanEvent = Extract<HandlerEvent, {action: 'plan'}>
export type RenderChunkEvent = Extract<HandlerEvent, {action: 'renderChunk'}>
export type AssembleEvent = Extract<HandlerEvent, {action: 'assemble'}>
export type StillEvent = Extract<HandlerEvent, {action: 'still'}>
export type NotifyFailureEvent = Extract<HandlerEvent, {action: 'notifyFailure'}>
export type FinishBatchEvent = Extract<HandlerEvent, {action: 'finishBatch'}>
export type NotifyRowEvent = Extract<HandlerEvent, {action: 'notifyRow'}>
export type {ExecutionEndedEvent} from './runtime/execution-end-rule.js'

/** What `plan` returns into the workflow state (`$.plan`). */
export interface PlanOutput {
  /** Frames of the output (a `frames` range's, when the config has one). */
  totalFrames: number
  chunks: ChunkItem[]
  maxParallelChunks: number
  /** More chunks run at once than an inline Map runs (40): the workflow fans out through its Distributed Map. */
  distributed: boolean
  /** The render ends at the plan (its check pass skipped it): the workflow's output, no chunk runs. */
  ended?: RenderOutcome
}
