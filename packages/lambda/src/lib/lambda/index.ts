/**
 * The serverless SDK (`engine/lambda`): upload a project once, start distributed renders and
 * batches, follow them, render stills in one invocation, and the pieces the stack is built from (handler, state machine, chunk planning).
 */
export {deploySite, siteHandleFromId, DEFAULT_ENTRY, type DeploySiteOptions, type DeployedSite, type SiteManifest} from './deploy-site.js'
export {renderToLambda, newRenderId, type RenderHandle, type RenderToLambdaOptions} from './render-to-lambda.js'
export {stillOnLambda, type LambdaStill, type StillOnLambdaOptions} from './still-on-lambda.js'
export {validateConfig, checkConfig, MAX_EXECUTION_INPUT_BYTES} from './validate-config.js'
export {getRenderProgress, executionArnFor, type RenderProgress, type ProgressOptions, type ExecutionStatus, type RenderStage} from './render-progress.js'
export {waitForRender, type WaitOptions} from './wait-for-render.js'
export {estimatePrice, ASSUMED_PROFILE, type EstimatePriceOptions, type PriceEstimate} from './estimate-price.js'
export {removeRender, type RemoveRenderOptions, type RemovedRender} from './remove-render.js'
export {contentDisposition, DELETE_AFTER, DELETE_AFTER_TAG, type DeleteAfter, type OutputSettings} from './output-settings.js'
export {
  renderBatchOnLambda,
  resumeBatchOnLambda,
  DEFAULT_MAX_CONCURRENT,
  DEFAULT_TOLERATED_FAILURE_PERCENTAGE,
  type LambdaBatchHandle,
  type LambdaBatchOptions,
  type RenderBatchOnLambdaOptions,
  type ResumeBatchOptions,
} from './batch/start-lambda-batch.js'
export {getBatchProgress, type BatchProgress, type BatchProgressOptions} from './batch/batch-progress.js'
export {cancelBatch, type CancelBatchOptions, type CancelledBatch} from './batch/cancel-batch.js'
export {batchConcurrencyWarning, type ChunksPerRender} from './batch/batch-concurrency-warning.js'
export {batchStateMachineDefinition, batchStateMachineArnOf} from './batch/batch-state-machine.js'
export type {BatchEntry, BatchStatus} from './batch/batch-items.js'
export type {BatchRecord, BatchRowRecord, BatchManifestFile} from './batch/batch-records.js'
export {planChunks, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS, type ChunkPlan, type ChunkTuning} from './chunk-plan.js'
export {renderStateMachineDefinition, THROTTLE_RETRY, FLAKY_RETRY, worstCaseRetryWaitSeconds, type StateMachineDefinition} from './state-machine-definition.js'
export {estimateCost, type CostEstimate} from './estimate-cost.js'
export {handler} from './handler.js'
export {AWS_ENDPOINT_ENV, BUCKET_ENV, STATE_MACHINE_ENV, type AwsClientOptions} from './aws-clients.js'
export type {RenderConfig, RenderInput, SiteHandle, StillInput} from './render-input.js'
