/**
 * Where everything lives in the render bucket:
 *
 * - `sites/<siteId>/...`: uploaded projects; `sites/<siteId>/site.json` is written last and marks
 *   a complete upload.
 * - `renders/<renderId>/render.json` (what was planned), `result.json` (what was produced),
 *   `failure.json` (why it failed) or `cancelled.json` (who stopped it), `stop.json` (the marker
 *   that stops running chunks) and `invocations/` (every invocation's cost): small records that
 *   progress and `renders ls` read; kept.
 * - `scratch/<renderId>/...`: the compiled plan, the chunks and their live frame counts; expired
 *   by the bucket's lifecycle rule and deleted after a successful assembly.
 * - `renders/<renderId>/output<ext>`: the default output key.
 */
export const SITES_PREFIX = 'sites/'
export const RENDERS_PREFIX = 'renders/'
export const SCRATCH_PREFIX = 'scratch/'

export const siteKey = (siteId: string, relativePath: string) => `${SITES_PREFIX}${siteId}/${relativePath}`
export const siteManifestKey = (siteId: string) => siteKey(siteId, 'site.json')

export const renderRecordKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/render.json`
export const renderResultKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/result.json`
/** Written by the workflow's Catch when the render fails. */
export const renderFailureKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/failure.json`
/** Written by `engine lambda cancel` once the execution is stopped. */
export const renderCancelKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/cancelled.json`
/**
 * Written first by every path that ends a render early (failure, cancel, timeout, an execution
 * stopped by hand): running chunks look for it before each segment and stop. Kept.
 */
export const renderStopKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/stop.json`
/** One empty-bodied object per handler invocation of the render, its cost in its name (see invocation-records.ts). Kept. */
export const invocationsPrefix = (renderId: string) => `${RENDERS_PREFIX}${renderId}/invocations/`
/** What became of the render's webhook call (written once it was made). */
export const renderWebhookDeliveryKey = (renderId: string) => `${RENDERS_PREFIX}${renderId}/webhook-delivery.json`
export const defaultOutputKey = (renderId: string, extension: string) => `${RENDERS_PREFIX}${renderId}/output${extension}`

export const scratchPrefix = (renderId: string) => `${SCRATCH_PREFIX}${renderId}/`
export const planKey = (renderId: string) => `${scratchPrefix(renderId)}plan.json`
/** The render's webhook URL and signing secret, stored by whoever started it. */
export const renderWebhookKey = (renderId: string) => `${scratchPrefix(renderId)}webhook.json`
/** The render's audio, mixed once by the plan step and muxed by assemble. */
export const audioTrackKey = (renderId: string) => `${scratchPrefix(renderId)}audio.wav`
/** The poster image (`config.poster`), written by the chunk that captured its frame; assemble moves it beside the output. */
export const posterScratchKey = (renderId: string) => `${scratchPrefix(renderId)}poster`
export const chunksPrefix = (renderId: string) => `${scratchPrefix(renderId)}chunks/`
export const chunkName = (index: number) => `chunk-${String(index).padStart(5, '0')}`
/** Written by a chunk after all of its segments: it lists them and marks the chunk done. */
export const chunkManifestKey = (renderId: string, index: number) => `${chunksPrefix(renderId)}${chunkName(index)}.json`
/** Why a chunk's invocation failed, as the workflow would have caught it: a Distributed Map reports only that its children failed. */
export const chunkFailuresPrefix = (renderId: string) => `${scratchPrefix(renderId)}chunk-failures/`
export const chunkFailureKey = (renderId: string, index: number) => `${chunkFailuresPrefix(renderId)}${chunkName(index)}.json`
/** A running chunk's count of captured frames, rewritten every few seconds; progress reads it. */
export const chunkProgressPrefix = (renderId: string) => `${scratchPrefix(renderId)}progress/`
export const chunkProgressKey = (renderId: string, index: number) => `${chunkProgressPrefix(renderId)}${chunkName(index)}.json`
export const chunkSegmentPrefix = (renderId: string, index: number) => `${chunksPrefix(renderId)}${chunkName(index)}/`
