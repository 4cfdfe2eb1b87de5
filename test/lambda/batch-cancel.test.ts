import {mkdtemp, rm} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {PutObjectCommand} from '@aws-sdk/client-s3'
import {SFNClient} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {batchRenderId} from '../../packages/lambda/src/lib/lambda/batch/batch-ids.js'
import {batchItemsKey, batchManifestKey, batchMapResultsPrefix, batchRecordKey, type BatchManifestFile, type BatchRecord} from '../../packages/lambda/src/lib/lambda/batch/batch-records.js'
import {batchStateMachineArnOf, batchStateMachineDefinition, type BatchExecutionInput} from '../../packages/lambda/src/lib/lambda/batch/batch-state-machine.js'
import {cancelBatch} from '../../packages/lambda/src/lib/lambda/batch/cancel-batch.js'
import {cancelRender} from '../../packages/lambda/src/lib/lambda/cancel-render.js'
import {LocalFunction} from '../../packages/lambda/src/lib/lambda/local/local-function.js'
import {startLocalStack, type LocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {LocalStepFunctions} from '../../packages/lambda/src/lib/lambda/local/local-step-functions.js'
import {handleSfnRequest} from '../../packages/lambda/src/lib/lambda/local/sfn-json-api.js'
import {readStop} from '../../packages/lambda/src/lib/lambda/runtime/render-stop.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import type {StateMachineDefinition} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {until} from '../support/until.js'
import {renderCallerPolicy} from '../../packages/lambda/src/lib/lambda/deploy/iam-policies.js'
import {deniedRequests, iamRequests, recordCalls, type RecordedCall} from './iam-requests.js'

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render:1'
const RENDER_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'
const BATCH_ARN = batchStateMachineArnOf(RENDER_ARN)
const BATCH_ID = 'lx2k9a1b-0f3c2a'
const ROWS = 6
const AT_ONCE = 3
// A render that runs until it is stopped: one task, as a chunk would, until its stop marker appears (or 60 s).
const SLOW_RENDER: StateMachineDefinition = {StartAt: 'Render', States: {Render: {Type: 'Task', Resource: FUNCTION_ARN, TimeoutSeconds: 120, End: true}}}

/**
 * `lambda batch cancel` against the offline stack's Step Functions (the real batch workflow, its
 * Distributed Map and nested renders, served over the Step Functions API the SDK speaks) and S3.
 */
describe('lambda batch cancel: the running rows are stopped, counted, and the manifest is written', () => {
  let directory: string
  let stack: LocalStack
  let server: Server
  let sfnApi: LocalStepFunctions
  let bucket: BucketObjects
  let sfn: SFNClient
  /** What the cancel commands send, from their own clients (the workflow's calls are its role's). */
  const calls: RecordedCall[] = []
  let callerS3: ReturnType<typeof createS3Client>

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-batch-cancel-'))
    stack = await startLocalStack({directory: join(directory, 'bucket')})
    const s3 = createS3Client({endpoint: stack.endpoint, localToken: stack.token})
    bucket = new BucketObjects(s3, stack.bucketName)
    sfnApi = new LocalStepFunctions({
      machines: [
        {arn: RENDER_ARN, definition: SLOW_RENDER},
        {arn: BATCH_ARN, definition: batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN)},
      ],
      function: new LocalFunction(20, async (event) => {
        const {renderId} = event as {renderId?: string}
        for (let i = 0; i < 600 && renderId && !(await readStop(bucket, renderId)); i++) await new Promise((resolve) => setTimeout(resolve, 100))
        return {bytes: 1, totalFrames: 1}
      }),
      s3: () => s3,
    })
    server = createServer((request, response) => void handleSfnRequest(sfnApi, request, response))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    sfn = new SFNClient({endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'us-east-1', credentials: {accessKeyId: 'engine-local', secretAccessKey: stack.token}})
    sfn.middlewareStack.use(recordCalls(calls))
    callerS3 = createS3Client({endpoint: stack.endpoint, localToken: stack.token})
    callerS3.middlewareStack.use(recordCalls(calls))
  })
  afterAll(async () => {
    await sfnApi?.close()
    await new Promise((resolve) => server?.close(resolve))
    await stack?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  it(`${ROWS} rows, ${AT_ONCE} at once: cancel stops the ${AT_ONCE} running renders, reports ${AT_ONCE}, starts no other, and the manifest has their CANCELLED status`, {timeout: 120_000}, async () => {
    const items = Array.from({length: ROWS}, (_, index) => JSON.stringify({index, renderId: batchRenderId(BATCH_ID, 1, index), outputKey: `out/${index}.mp4`, config: {}})).join('\n')
    await bucket.s3.send(new PutObjectCommand({Bucket: stack.bucketName, Key: batchItemsKey(BATCH_ID, 1), Body: items}))
    const executionArn = `${BATCH_ARN.replace(':stateMachine:', ':execution:')}:${BATCH_ID}-run-1`
    const record: BatchRecord = {
      batchId: BATCH_ID, createdAt: new Date().toISOString(), bucketName: stack.bucketName, siteId: 's', entry: 'index.html', stateMachineArn: RENDER_ARN,
      total: ROWS, rejected: 0, maxConcurrent: AT_ONCE, toleratedFailurePercentage: 100, runs: [{run: 1, executionArn, startedAt: new Date().toISOString(), rows: ROWS}],
    }
    await bucket.putJson(batchRecordKey(BATCH_ID), record)
    const input: BatchExecutionInput = {
      batchId: BATCH_ID, run: 1, bucketName: stack.bucketName, itemsKey: batchItemsKey(BATCH_ID, 1), resultsPrefix: batchMapResultsPrefix(BATCH_ID, 1),
      siteId: 's', entry: 'index.html', maxConcurrent: AT_ONCE, toleratedFailurePercentage: 100, webhook: false,
    }
    sfnApi.startExecution({stateMachineArn: BATCH_ARN, name: `${BATCH_ID}-run-1`, input: JSON.stringify(input)})
    const running = () => sfnApi.listExecutions({stateMachineArn: RENDER_ARN, statusFilter: 'RUNNING'}).executions
    expect(await until(() => running().length === AT_ONCE, 30_000)).toBe(true)

    const cancelled = await cancelBatch({batchId: BATCH_ID, bucketName: stack.bucketName, s3: callerS3, sfn})
    expect(cancelled).toMatchObject({batchId: BATCH_ID, run: 1, stopped: true, rendersCancelled: AT_ONCE})
    expect(sfnApi.describeExecution({executionArn}).status).toBe('ABORTED')
    // Nothing runs on and no further row started.
    expect(running()).toEqual([])
    const renders = sfnApi.listExecutions({stateMachineArn: RENDER_ARN}).executions
    expect(renders).toHaveLength(AT_ONCE)
    for (const render of renders) {
      expect(render.status).toBe('ABORTED')
      expect((await readStop(bucket, render.name))?.reason).toBe('cancelled')
    }
    const manifest = await bucket.getJson<BatchManifestFile>(batchManifestKey(BATCH_ID))
    expect(manifest!.counts).toEqual({total: ROWS, succeeded: 0, cached: 0, failed: AT_ONCE, skipped: 0, rejected: 0, missing: ROWS - AT_ONCE})
    expect(cancelled.counts).toEqual(manifest!.counts)
    expect(manifest!.rows.map((row) => [row.index, row.status, row.error?.code])).toEqual(
      renders.map((render) => Number(render.name.split('-').at(-1))).sort((a, b) => a - b).map((index) => [index, 'failed', 'CANCELLED']),
    )
  })

  it('lambda cancel reports how long it took to stop the execution and in all, as measured', async () => {
    sfnApi.startExecution({stateMachineArn: RENDER_ARN, name: 'single-render', input: JSON.stringify({renderId: 'single-render', bucketName: stack.bucketName})})
    const startedAt = performance.now()
    const cancelled = await cancelRender({render: `${RENDER_ARN.replace(':stateMachine:', ':execution:')}:single-render`, s3: callerS3, sfn})
    const took = performance.now() - startedAt
    expect(cancelled.stopped).toBe(true)
    expect(cancelled.stoppedAfterMs).toBeGreaterThan(0)
    expect(cancelled.durationMs).toBeGreaterThanOrEqual(cancelled.stoppedAfterMs!)
    expect(cancelled.durationMs).toBeLessThanOrEqual(Math.ceil(took))
  })

  it('every call batch cancel and cancel made is allowed by the policy `lambda policies role` prints (IAM policy evaluator)', async () => {
    const account = {region: 'us-east-1', accountId: '000000000000'}
    const requests = calls.flatMap((call) => iamRequests(call, account))
    expect(new Set(requests.map((request) => request.action))).toEqual(
      new Set(['s3:GetObject', 's3:PutObject', 's3:ListBucket', 'states:ListExecutions', 'states:DescribeExecution', 'states:StopExecution']),
    )
    const policy = renderCallerPolicy({...account, name: 'engine-render', bucketName: stack.bucketName})
    expect(await deniedRequests(requests, policy, account.accountId)).toEqual([])
  })
})
