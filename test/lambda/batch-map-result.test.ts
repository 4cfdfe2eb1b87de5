import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {finishBatchAction, manifestRow} from '../../packages/lambda/src/lib/lambda/actions/finish-batch-action.js'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {batchItemsKey, batchManifestKey, batchMapResultsPrefix, batchRecordKey, type BatchManifestFile} from '../../packages/lambda/src/lib/lambda/batch/batch-records.js'
import {BATCH_TASK_TIMEOUTS, batchStateMachineArnOf, batchStateMachineDefinition, type BatchExecutionInput} from '../../packages/lambda/src/lib/lambda/batch/batch-state-machine.js'
import {LocalFunction} from '../../packages/lambda/src/lib/lambda/local/local-function.js'
import {startLocalStack, type LocalStack} from '../../packages/lambda/src/lib/lambda/local/local-stack.js'
import {LocalStepFunctions} from '../../packages/lambda/src/lib/lambda/local/local-step-functions.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {renderStateMachineDefinition, type StateMachineDefinition} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {EXECUTION_TIMEOUT_SECONDS} from '../../packages/lambda/src/lib/lambda/runtime/render-timeout.js'
import {MAX_STATE_DATA_BYTES} from '../../packages/lambda/src/lib/lambda/workflow-limits.js'

const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render:1'
const RENDER_ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'
const BATCH_ARN = batchStateMachineArnOf(RENDER_ARN)
// A cheap render in place of the real one: each row's nested execution succeeds at once with
// what a render returns. The batch workflow around it is the one deploy creates.
const INSTANT_RENDER: StateMachineDefinition = {
  StartAt: 'Rendered',
  States: {
    Rendered: {
      Type: 'Pass',
      Result: {status: 'succeeded', outputKey: 'out.mp4', outputBucket: null, bytes: 1234, totalFrames: 30, durationSeconds: 1, sha256: null, posterKey: null, warnings: [], skippedReason: null, renderMs: 5},
      End: true,
    },
  },
}

/** Every Task state of a definition, nested ones included, by name. */
function tasks(definition: StateMachineDefinition): [string, Record<string, unknown>][] {
  return Object.entries(definition.States).flatMap(([name, state]) => {
    const inner = state.ItemProcessor as StateMachineDefinition | undefined
    return [...(state.Type === 'Task' ? [[name, state] as [string, Record<string, unknown>]] : []), ...(inner ? tasks(inner) : [])]
  })
}

describe('a batch of any size: the Distributed Map keeps its children\'s results out of its state', () => {
  let directory: string
  let stack: LocalStack
  let bucket: BucketObjects

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-batch-map-'))
    stack = await startLocalStack({directory: join(directory, 'bucket')})
    bucket = new BucketObjects(createS3Client({endpoint: stack.endpoint, localToken: stack.token}), stack.bucketName)
  })
  afterAll(async () => {
    await stack?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  /** Runs `rows` rows (each with the variables `data`) through a batch workflow on the local Step Functions and S3; the Map's result as it left the Map. */
  async function runBatch(batchId: string, rows: number, definition: StateMachineDefinition, data: Record<string, unknown> = {}) {
    const items = Array.from({length: rows}, (_, index) => JSON.stringify({index, renderId: `${batchId}-r${index}`, outputKey: `out/${index}.mp4`, config: {}, data})).join('\n')
    await bucket.putJson(batchRecordKey(batchId), {batchId, total: rows, rejected: 0, runs: []})
    await bucket.s3.send(new (await import('@aws-sdk/client-s3')).PutObjectCommand({Bucket: stack.bucketName, Key: batchItemsKey(batchId, 1), Body: items}))
    const s3 = createS3Client({endpoint: stack.endpoint, localToken: stack.token})
    const sfn = new LocalStepFunctions({
      machines: [
        {arn: RENDER_ARN, definition: INSTANT_RENDER},
        {arn: BATCH_ARN, definition},
      ],
      // Finish is the real action, writing the manifest from the row records.
      function: new LocalFunction(4, (event) => finishBatchAction(event as never, {s3, memoryMb: 10240, startedAt: performance.now()})),
      s3: () => s3,
    })
    const input: BatchExecutionInput = {
      batchId,
      run: 1,
      bucketName: stack.bucketName,
      itemsKey: batchItemsKey(batchId, 1),
      resultsPrefix: batchMapResultsPrefix(batchId, 1),
      siteId: 's',
      entry: 'index.html',
      maxConcurrent: 200,
      toleratedFailurePercentage: 0,
      webhook: false,
    }
    const {executionArn} = sfn.startExecution({stateMachineArn: BATCH_ARN, name: `${batchId}-run-1`, input: JSON.stringify(input)})
    for (let i = 0; i < 3000 && sfn.describeExecution({executionArn}).status === 'RUNNING'; i++) await new Promise((resolve) => setTimeout(resolve, 100))
    const execution = sfn.describeExecution({executionArn})
    const [mapRun] = sfn.listMapRuns({executionArn}).mapRuns
    const described = sfn.describeMapRun({mapRunArn: mapRun!.mapRunArn})
    const result = (sfn as unknown as {mapRuns: Map<string, {result?: unknown}>}).mapRuns.get(mapRun!.mapRunArn)!.result
    const renders = sfn.listExecutions({stateMachineArn: RENDER_ARN, maxResults: 1000}).executions.map((render) => render.name)
    await sfn.close()
    return {execution, described, result, resultBytes: Buffer.byteLength(JSON.stringify(result ?? null)), renders}
  }

  // What overflows the old shape is the children's state in bytes, rows times each row's state: rows
  // with 2 KB of variables each overflow it from about 110 rows, as bare rows did from 800, at a
  // fraction of the child executions. The same batch runs in both shapes: the property is that the
  // Map's result no longer grows with the rows, where the old one's passes the limit.
  const ROWS = 150
  const ROW_DATA = {text: 'x'.repeat(2048)}

  it('150 rows of 2 KB variables: every child ends with {}, the Map writes their results to S3 and returns only where (a few hundred bytes); the manifest has every row', {timeout: 240_000}, async () => {
    const {execution, described, result, resultBytes} = await runBatch('big', ROWS, batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN), ROW_DATA)
    expect(execution.status, execution.cause).toBe('SUCCEEDED')
    expect(described.itemCounts).toMatchObject({total: ROWS, succeeded: ROWS, failed: 0, resultsWritten: ROWS})
    expect(result).toEqual({MapRunArn: described.mapRunArn, ResultWriterDetails: {Bucket: stack.bucketName, Key: expect.stringMatching(/^batches\/big\/runs\/1\/map-results\/.+\/manifest\.json$/)}})
    expect(resultBytes).toBeLessThan(512)
    // What the children returned, as written: an empty object each.
    const written = await bucket.getJson<{ResultFiles: {SUCCEEDED: {Key: string}[]}}>((result as {ResultWriterDetails: {Key: string}}).ResultWriterDetails.Key)
    const succeeded = await bucket.getJson<{Output: string}[]>(written!.ResultFiles.SUCCEEDED[0]!.Key)
    expect(succeeded).toHaveLength(ROWS)
    expect(new Set(succeeded!.map((entry) => entry.Output))).toEqual(new Set(['{}']))
    const manifest = await bucket.getJson<BatchManifestFile>(batchManifestKey('big'))
    expect(manifest!.counts).toMatchObject({total: ROWS, succeeded: ROWS, failed: 0, missing: 0})
    console.log(`batch Map result at ${ROWS} rows of 2 KB: ${resultBytes} bytes (limit ${MAX_STATE_DATA_BYTES})`)
  })

  it('without the ResultWriter and the empty child output, the same 150 rows fail the batch with States.DataLimitExceeded and no manifest', {timeout: 120_000}, async () => {
    const definition = batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN)
    const rows = definition.States.Rows as Record<string, any>
    const {ResultWriter: _writer, ...withoutWriter} = rows
    // The row's child ends with its whole state, as it did before RowDone emptied it.
    const fullState = {Type: 'Pass', End: true}
    const old = {...definition, States: {...definition.States, Rows: {...withoutWriter, ItemProcessor: {...withoutWriter.ItemProcessor, States: {...withoutWriter.ItemProcessor.States, RowDone: fullState}}}}}
    const {execution, resultBytes} = await runBatch('old', ROWS, old, ROW_DATA)
    expect(resultBytes).toBeGreaterThan(MAX_STATE_DATA_BYTES)
    expect(execution).toMatchObject({status: 'FAILED', error: 'States.DataLimitExceeded'})
    expect(await bucket.getJson(batchManifestKey('old'))).toBeUndefined()
  })

  it('each row runs as a render execution named by its render id (what progress, cancel and a retried start find it by), one per row', {timeout: 60_000}, async () => {
    const {execution, renders} = await runBatch('named', 5, batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN))
    expect(execution.status, execution.cause).toBe('SUCCEEDED')
    expect(renders.sort()).toEqual(['named-r0', 'named-r1', 'named-r2', 'named-r3', 'named-r4'])
    const rows = await Promise.all([0, 1, 2, 3, 4].map((index) => bucket.getJson<{renderId: string; status: string}>(`batches/named/rows/${index}.json`)))
    expect(rows.map((row) => [row!.renderId, row!.status])).toEqual([0, 1, 2, 3, 4].map((index) => [`named-r${index}`, 'succeeded']))
  })

  it('a render stopped twice keeps the first reason: a cancel after a failure still reads failed', async () => {
    const {markStopped, readStop} = await import('../../packages/lambda/src/lib/lambda/runtime/render-stop.js')
    await markStopped(bucket, 'stopped-twice', 'failed')
    await markStopped(bucket, 'stopped-twice', 'cancelled')
    await markStopped(bucket, 'stopped-twice', 'timed-out')
    expect((await readStop(bucket, 'stopped-twice'))?.reason).toBe('failed')
  })
})

describe('timeouts as AWS has them', () => {
  it('every Task state of both workflows sets TimeoutSeconds sized to its work', () => {
    const render = renderStateMachineDefinition(FUNCTION_ARN)
    const batch = batchStateMachineDefinition(RENDER_ARN, FUNCTION_ARN)
    const all = [...tasks(render), ...tasks(batch)]
    expect(all.map(([name]) => name).sort()).toEqual(['Assemble', 'Finish', 'NotifyFailedRow', 'NotifyFailure', 'NotifyRow', 'Plan', 'RecordFailure', 'RecordSuccess', 'RenderChunk', 'RenderChunkChild', 'RenderRow'].sort())
    for (const [name, state] of all) expect(state.TimeoutSeconds, name).toBeTypeOf('number')
    const byName = Object.fromEntries(all)
    // A row waits for its render, which its own execution timeout ends.
    expect(byName.RenderRow!.TimeoutSeconds).toBeGreaterThan(EXECUTION_TIMEOUT_SECONDS)
    expect(byName.RenderRow!.TimeoutSeconds).toBe(BATCH_TASK_TIMEOUTS.renderRow)
    expect(byName.Finish!.TimeoutSeconds).toBe(900)
    expect(byName.RecordSuccess!.TimeoutSeconds).toBe(60)
    expect(byName.NotifyRow!.TimeoutSeconds).toBe(BATCH_TASK_TIMEOUTS.notify)
    // A row is never started again under its used name after its render ran out of time.
    for (const retrier of byName.RenderRow!.Retry as {ErrorEquals: string[]}[]) expect(retrier.ErrorEquals).not.toContain('States.Timeout')
  })

  it('the offline stack gives a Task without TimeoutSeconds AWS\'s default (none), not the emulator\'s 60 s', async () => {
    const {emulatedDefinition} = await import('../../packages/lambda/src/lib/lambda/local/emulated-definition.js')
    const bare: StateMachineDefinition = {StartAt: 'Slow', States: {Slow: {Type: 'Task', Resource: FUNCTION_ARN, End: true}, Timed: {Type: 'Task', Resource: FUNCTION_ARN, TimeoutSeconds: 5, End: true}}}
    const {definition} = emulatedDefinition(bare, 'arn:aws:states:::engine-local:distributedMap')
    expect(definition.States.Slow!.TimeoutSeconds).toBeGreaterThan(EXECUTION_TIMEOUT_SECONDS)
    expect(definition.States.Timed!.TimeoutSeconds).toBe(5)
  })
})

describe('a failed row\'s cause as AWS writes it', () => {
  const render = {code: 'COMPILE_FAILED', message: 'index.html: no composition'}
  // The startExecution.sync:2 integration fails with States.TaskFailed; its Cause is the nested
  // execution as DescribeExecution describes it, in the integration's PascalCase.
  const awsCause = JSON.stringify({
    ExecutionArn: `${RENDER_ARN.replace(':stateMachine:', ':execution:')}:b-r1`,
    StateMachineArn: RENDER_ARN,
    Name: 'b-r1',
    Status: 'FAILED',
    StartDate: 1765100000000,
    StopDate: 1765100004000,
    Input: '{}',
    InputDetails: {Included: true},
    Error: 'Engine.COMPILE_FAILED',
    Cause: JSON.stringify({errorType: 'EngineError', errorMessage: JSON.stringify(render)}),
  })

  it('reads the render\'s own error from the PascalCase cause, and from the API\'s lowerCamel one', () => {
    const row = {index: 1, run: 1, renderId: 'b-r1', outputKey: 'o.mp4', status: 'failed' as const, error: 'States.TaskFailed'}
    const pascal = manifestRow({...row, cause: awsCause})
    const camel = manifestRow({...row, cause: JSON.stringify({status: 'FAILED', error: 'Engine.COMPILE_FAILED', cause: JSON.stringify({errorType: 'EngineError', errorMessage: JSON.stringify(render)})})})
    expect(pascal.error?.code).toBe('COMPILE_FAILED')
    expect(camel.error).toEqual(pascal.error)
  })
})
