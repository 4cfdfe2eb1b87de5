import {z} from 'zod'

/** 2: the base variables and the hash of every composition file are part of the batch's identity. */
export const MANIFEST_VERSION = 2

const webhookDeliverySchema = z.object({
  deliveryId: z.string(),
  url: z.string(),
  delivered: z.boolean(),
  attempts: z.number(),
  statusCode: z.number().optional(),
  error: z.string().optional(),
})

const rowWarningSchema = z.object({
  /** A stable code such as `text-overflow` or `page-error`: the result sheet lists these. */
  code: z.string(),
  message: z.string(),
  /** Where it was found (element, variable, time, pixels …), as the code that raised it records it. */
  detail: z.record(z.string(), z.unknown()).optional(),
})
export type RowWarning = z.infer<typeof rowWarningSchema>

/** `cached`: the row's output was copied from the render cache (an identical render done before); it is done like `completed`. */
export const ROW_STATUSES = ['pending', 'running', 'completed', 'failed', 'skipped', 'cached'] as const
export type RowStatus = (typeof ROW_STATUSES)[number]

/** A row with this status has its output in place: `--resume` keeps it, the batch does not render it again. */
export function isRowDone(status: RowStatus): boolean {
  return status === 'completed' || status === 'cached'
}

/** Every status at zero. */
export function zeroCounts(): Record<RowStatus, number> {
  return {pending: 0, running: 0, completed: 0, failed: 0, skipped: 0, cached: 0}
}

const rowSchema = z.object({
  index: z.number().int().nonnegative(),
  status: z.enum(ROW_STATUSES),
  /** Relative to the manifest's directory, so that a folder of renders can be moved as a whole. */
  output: z.string(),
  /** The top-level values the composition saw: declared defaults < --variables < row. */
  variables: z.record(z.string(), z.unknown()),
  startedAt: z.string().optional(),
  finishedAt: z.string().optional(),
  /** Wall-clock time of the row's render. */
  renderMs: z.number().optional(),
  /** Length of the rendered output, in seconds. */
  durationSeconds: z.number().optional(),
  totalFrames: z.number().optional(),
  /** The row's poster image (`--poster`), relative to the manifest's directory. */
  poster: z.string().optional(),
  bytes: z.number().optional(),
  /** Hex sha256 of the output file (absent for a folder of frames): the result sheet's `sha256`. */
  sha256: z.string().optional(),
  /** Remote http(s) URLs the row's page loaded (through the download cache). */
  fetchedUrls: z.array(z.string()).optional(),
  error: z.object({code: z.string(), message: z.string()}).optional(),
  /** Why a skipped row was not launched. */
  skippedReason: z.string().optional(),
  /** The row's webhook call (--webhook): delivered or why not. */
  webhook: webhookDeliverySchema.optional(),
  /**
   * The row's own columns that are not declared variables (a customer id, an e-mail): they never
   * reach the page, so they change neither pixels nor the render's cache key, but they travel with
   * the row into output names, events, webhooks and the result sheet.
   */
  data: z.record(z.string(), z.unknown()).optional(),
  /** Problems that did not stop the row (a text-overflow finding, a page error under `--page-errors warn`). */
  warnings: z.array(rowWarningSchema).optional(),
})

/** Render options that change the pixels or the file: a resumed batch must use the same ones. */
const settingsSchema = z.object({
  format: z.string(),
  fps: z.string(),
  quality: z.string(),
  crf: z.number().optional(),
  videoBitrate: z.string().optional(),
  keyframeInterval: z.number().optional(),
  hlsSegmentSeconds: z.number().optional(),
  gifLoop: z.number(),
  gpu: z.boolean(),
  hdr: z.boolean(),
  sdr: z.boolean(),
  videoFrameFormat: z.string(),
  scale: z.number().optional(),
  /** `--frames` as written (`30-59`); absent for every frame. */
  frames: z.union([z.string(), z.number()]).optional(),
})

export const manifestSchema = z.object({
  version: z.literal(MANIFEST_VERSION),
  /** Absolute path of the composition. */
  composition: z.string(),
  /** Over `compositionFiles`: any edit to the composition or one of its sub-compositions changes it. */
  compositionSha256: z.string(),
  /** sha256 of each composition file (top level and sub-compositions), by path relative to the composition's folder. */
  compositionFiles: z.record(z.string(), z.string()),
  /** `--variables-file` < `--variables`: the layer under every row. */
  baseVariables: z.record(z.string(), z.unknown()),
  /** Absolute path of the batch file. */
  batchFile: z.string(),
  rowsSha256: z.string(),
  /** `--output` (or the default template), as an absolute path. */
  outputTemplate: z.string(),
  settings: settingsSchema,
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Set when the batch ended (every row completed, failed or skipped); absent while it runs. */
  finishedAt: z.string().optional(),
  // A manifest written before the cache had no `cached` count.
  counts: z.preprocess((value) => (value !== null && typeof value === 'object' ? {cached: 0, ...value} : value), z.record(z.enum(ROW_STATUSES), z.number())),
  /** The batch.completed webhook call, once made. */
  webhook: webhookDeliverySchema.optional(),
  /** Set in a shard's manifest (`--shard`): it holds the rows whose index mod `count` is `index`. */
  shard: z.object({index: z.number().int().nonnegative(), count: z.number().int().positive()}).optional(),
  rows: z.array(rowSchema),
})

/** Everything but the rows: what identifies the batch and sums it up. */
export const manifestHeadSchema = manifestSchema.omit({rows: true})

export {rowSchema as manifestRowSchema}

export type BatchManifest = z.infer<typeof manifestSchema>
export type ManifestHead = z.infer<typeof manifestHeadSchema>
export type ManifestRow = z.infer<typeof rowSchema>
/** A row's state and outcome: its entry without what the batch file fixes (output, variables and data). */
export type RowRecord = Omit<ManifestRow, 'output' | 'variables' | 'data'>
export type RenderSettings = z.infer<typeof settingsSchema>
export type StatusCounts = Record<RowStatus, number>
