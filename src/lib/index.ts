/**
 * The programmatic API (SDK) of engine: the same functions the CLI, the producer server and the
 * Lambda handler call.
 */
export {extractCompositionMetadata, type CompositionMetadata} from './compose/extract-composition-metadata.js'
export {compileComposition, type CompiledComposition, type CompileOptions} from './compose/compile-composition.js'
export {lintComposition} from './lint/lint-composition.js'
export {EngineError, isEngineError, toEngineError, type ErrorCode, type ErrorJson} from './errors/engine-error.js'
export {loadConfig} from './config/load-config.js'
export {parseRenderOptions, renderOptionsSchema, RENDER_DEFAULTS, type RenderOptionsInput} from './plan/render-options.js'
export {resolveRenderOptions, type ResolvedRenderOptions} from './plan/resolve-options.js'
export {planRender} from './plan/plan-render.js'
export {parseFps, type Fps} from './plan/fps.js'
export type {FrameRange, RenderPlan} from './plan/render-plan.js'
export {renderComposition, type RenderRequest, type RenderResult} from './render/render-composition.js'
export type {RenderEvent, RenderEventListener} from './render/render-events.js'
export {getFormat, listFormats, registerFormat} from './encode/format-registry.js'
export type {FormatPlugin} from './encode/format-plugin.js'
export type {VariableDeclaration} from './variables/variable-declaration.js'
export {renderBatch, type BatchRequest} from './batch/render-batch.js'
export type {BatchSummary} from './batch/run-batch.js'
export type {BatchManifest, ManifestRow, RowStatus} from './batch/batch-manifest.js'
export type {BatchEvent} from './batch/batch-events.js'
export {startServer, resolveServerSettings, type RunningServer, type ServerSettings} from './server/index.js'
