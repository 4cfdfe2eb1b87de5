import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {DescribeMapRunCommand, ListMapRunsCommand} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {getRenderProgress, waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import type {RenderFailureRecord, RenderRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {renderFailureKey, renderRecordKey} from '../../packages/lambda/src/lib/lambda/storage-keys.js'
import {probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {StandInCloud} from './stand-in-cloud.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

describe('a render of more than 40 chunks at once on the local stack', () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env})

  beforeAll(async () => {
    // The shared stack runs 8 invocations at once: the other chunks wait for a slot (throttled and retried, as on AWS).
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-many-'))])
  }, 60_000)
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('fans out through the Distributed Map with the MaxConcurrency asked for (42), and the output has every frame', async () => {
    // 3 s at 14 fps with a keyframe every 0.1 s (one frame): 42 one-frame chunks.
    const started = await lambda(['render', PROJECT, '--fps', '14', '--keyframe-interval', '0.1', '--chunk-size', '1', '--max-parallel-chunks', '42', '--output-key', 'out/many.mp4', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const {renderId, executionArn} = JSON.parse(started.stdout) as {renderId: string; executionArn: string}
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 500, signal: AbortSignal.timeout(300_000)})
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {done: 42, total: 42}})

    const record = await stack.bucket.getJson<RenderRecord>(renderRecordKey(renderId))
    expect(record).toMatchObject({maxParallelChunks: 42})
    expect(record!.warnings.map((warning) => warning.code)).not.toContain('parallelism-clamped')
    const sfn = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    const {mapRuns} = await sfn.send(new ListMapRunsCommand({executionArn}))
    expect(mapRuns).toHaveLength(1)
    const mapRun = await sfn.send(new DescribeMapRunCommand({mapRunArn: mapRuns![0]!.mapRunArn}))
    expect(mapRun).toMatchObject({status: 'SUCCEEDED', maxConcurrency: 42, itemCounts: {total: 42, succeeded: 42, failed: 0}})
    // The cost counts the child workflows' transitions, which the render's own history does not show:
    // Plan, FanOut, the Map and Assemble, then per child its start and its one chunk task.
    expect(done.cost.stateTransitions).toBe(4 + 42 * 2)
    // A caller whose policy predates this (no states:ListMapRuns) still gets the progress, told what the cost leaves out.
    const denied = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    denied.middlewareStack.use(new StandInCloud({accountId: '000000000000', region: 'us-east-1', concurrency: 1000, memoryCapMb: 10240, codeHashes: new Map(), passThrough: ['SFNClient'], denied: (command) => command === 'ListMapRuns'}).plugin())
    const partial = await getRenderProgress({render: executionArn, sfn: denied, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    expect(partial).toMatchObject({status: 'SUCCEEDED', cost: {stateTransitions: 4}})
    expect(partial.warnings).toContainEqual({code: 'cost-without-child-workflows', message: expect.stringMatching(/leaves out the state transitions .* \(AccessDenied: .*states:ListMapRuns and states:DescribeMapRun/)})

    const output = join(scratch, 'many.mp4')
    await stack.bucket.downloadFile('out/many.mp4', output)
    expect(await probeVideoStream(output)).toMatchObject({width: 320, height: 180, nb_read_frames: '42'})
  }, 360_000)

  it('a chunk failing in the Distributed Map fails the render with that chunk\'s own error, not the Map\'s', async () => {
    // Every frame throws: the first chunk to fail ends the map run (no failure tolerated).
    const started = await lambda(['render', join(LAMBDA_FIXTURES, 'slow'), '--variables', '{"failAt": 0, "work": 0}', '--fps', '14', '--frames', '0-41', '--keyframe-interval', '0.1', '--chunk-size', '1', '--max-parallel-chunks', '42', '--json'])
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 500, signal: AbortSignal.timeout(300_000)})
    expect(done.status).toBe('FAILED')
    expect(done.error).toMatchObject({code: 'PAGE_ERROR', message: expect.stringMatching(/fails on purpose at 0 s/)})
    const failure = await stack.bucket.getJson<RenderFailureRecord>(renderFailureKey(renderId))
    expect(failure).toMatchObject({error: 'Engine.PAGE_ERROR', code: 'PAGE_ERROR', chunk: expect.any(Number)})
  }, 360_000)
})
