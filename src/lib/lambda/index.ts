/**
 * The serverless SDK (`engine/lambda`): upload a project once, start distributed renders, follow
 * them, render stills in one invocation, and the pieces the stack is built from (handler, state machine, chunk planning).
 */
export {deploySite, siteHandleFromId, DEFAULT_ENTRY, type DeploySiteOptions, type DeployedSite, type SiteManifest} from './deploy-site.js'
export {renderToLambda, newRenderId, type RenderHandle, type RenderToLambdaOptions} from './render-to-lambda.js'
export {stillOnLambda, type LambdaStill, type StillOnLambdaOptions} from './still-on-lambda.js'
export {validateConfig, checkConfig, MAX_EXECUTION_INPUT_BYTES} from './validate-config.js'
export {getRenderProgress, executionArnFor, type RenderProgress, type ProgressOptions, type ExecutionStatus, type RenderStage} from './render-progress.js'
export {waitForRender, type WaitOptions} from './wait-for-render.js'
export {startRenderBatch, batchCounts, concurrencyWarning, type BatchEntry, type BatchStatus, type StartBatchOptions} from './start-batch.js'
export {readBatchLines, parseBatchLines, type BatchLine} from './batch-lines.js'
export {planChunks, DEFAULT_CHUNK_SIZE, DEFAULT_MAX_PARALLEL_CHUNKS, type ChunkPlan, type ChunkTuning} from './chunk-plan.js'
export {renderStateMachineDefinition, THROTTLE_RETRY, FLAKY_RETRY, worstCaseRetryWaitSeconds, type StateMachineDefinition} from './state-machine-definition.js'
export {estimateCost, type CostEstimate} from './estimate-cost.js'
export {handler} from './handler.js'
export {AWS_ENDPOINT_ENV, BUCKET_ENV, STATE_MACHINE_ENV, type AwsClientOptions} from './aws-clients.js'
export type {RenderConfig, RenderInput, SiteHandle, StillInput} from './render-input.js'
