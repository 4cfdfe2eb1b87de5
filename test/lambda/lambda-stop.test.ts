import {setTimeout as sleep} from 'node:timers/promises'
import {join} from 'node:path'
import {GetExecutionHistoryCommand} from '@aws-sdk/client-sfn'
import {createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {executionArnFor} from '../../packages/lambda/src/lib/lambda/render-progress.js'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getRenderProgress, type RenderProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import type {RenderFailureRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {readInvocations} from '../../packages/lambda/src/lib/lambda/runtime/invocation-records.js'
import {startReceiver} from '../notify/receiver.js'
import {runCli} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

const SECRET = 'stop-hook-secret'
/** The bar: nothing of the render's scratch is left this long after its end. */
const QUIET_AFTER_END_MS = 30_000
// 8 s at 30 fps, 0.5 s segments: four chunks of 60 frames (four segments each), every frame a
// fixed amount of CPU work, so the chunks run for seconds. One capture worker a chunk: four
// browsers at work instead of eight on the machine's cores, each chunk running longer, so still
// running when a sibling fails or the cancel comes.
const SLOW = join(LAMBDA_FIXTURES, 'slow')
const CHUNKING = ['--chunk-size', '60', '--concurrency-per-chunk', '1', '--keyframe-interval', '0.5']
/**
 * Four times the fixture's default work a frame, for the renders that must still have chunks
 * running when they are stopped: with the default, a fast CI machine once saw every chunk finish
 * before the stop marker was written (a cancel's command start-up leaves even less time).
 */
const STILL_RUNNING_WORK = 16_000_000

describe('stopping a serverless render stops its chunks (local stack)', {timeout: 240_000}, () => {
  let stack: RunningStack

  beforeAll(async () => {
    stack = await startStackCli()
  })
  afterAll(async () => {
    await stack?.stop()
  })

  const start = async (args: string[], webhookUrl: string, chunking = CHUNKING) => {
    const started = await runCli(['lambda', 'render', SLOW, ...chunking, ...args, '--webhook', webhookUrl, '--json'], {env: {...stack.env, ENGINE_WEBHOOK_SECRET: SECRET}})
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    return {renderId, options: {render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN}}
  }

  const waitForEnd = async (options: {render: string}): Promise<RenderProgress> => {
    for (let tries = 0; tries < 600; tries++) {
      const progress = await getRenderProgress(options)
      if (progress.status !== 'RUNNING') return progress
      await sleep(200)
    }
    throw new Error(`render ${options.render} did not end within 2 minutes`)
  }

  /** Chunk invocations the execution started, abandoned ones included (the local stack records them all). */
  const chunkInvocationsStarted = async (renderId: string): Promise<number> => {
    const sfn = createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT})
    const {events = []} = await sfn.send(new GetExecutionHistoryCommand({executionArn: executionArnFor(stack.env.ENGINE_SFN_ARN, renderId), maxResults: 1000}))
    const scheduled = new Set(events.filter((event) => event.lambdaFunctionScheduledEventDetails?.input?.includes('"renderChunk"')).map((event) => event.id))
    return events.filter((event) => event.type === 'LambdaFunctionStarted' && scheduled.has(event.previousEventId)).length
  }

  /**
   * What is left of the render's scratch once every chunk invocation it started has ended (each
   * leaves its record), and at the latest QUIET_AFTER_END_MS after the render's end.
   */
  const scratchLeftAfterChunksEnded = async (renderId: string, stoppedAt: string, chunksStarted: 'some' | 'any' = 'some'): Promise<string[]> => {
    const quietAt = Date.parse(stoppedAt) + QUIET_AFTER_END_MS
    const started = await chunkInvocationsStarted(renderId)
    if (chunksStarted === 'some') expect(started).toBeGreaterThan(0)
    while (Date.now() < quietAt) {
      const ended = (await readInvocations(stack.bucket, renderId)).filter((record) => record.action === 'renderChunk').length
      if (ended >= started) break
      await sleep(250)
    }
    // The execution-end rule's sweep and the chunks' own clean-up run after the chunks' records: wait
    // for the scratch to empty, within the quiet time (at least 10 s more on a loaded machine).
    const scratch = () => stack.bucket.listKeys(`scratch/${renderId}/`)
    await until(async () => (await scratch()).length === 0, Math.max(quietAt - Date.now(), 10_000), 250)
    return scratch()
  }

  it('a chunk that fails stops its running siblings: no scratch 30 s after FAILED, one webhook, every invocation costed', async () => {
    const receiver = await startReceiver(SECRET)
    try {
      // The siblings' 60 frames must outlast chunk 3's first frame plus the failure path.
      const {renderId, options} = await start(['--variables', JSON.stringify({failAt: 6, work: STILL_RUNNING_WORK})], receiver.url)
      const ended = await waitForEnd(options)
      expect(ended.status).toBe('FAILED')
      expect(ended.error?.code).toBe('PAGE_ERROR')

      expect(await scratchLeftAfterChunksEnded(renderId, ended.stoppedAt!)).toEqual([])
      // Chunks were still running when the render failed: they found the stop marker and stopped.
      const invocations = await readInvocations(stack.bucket, renderId)
      const chunkRuns = invocations.filter((record) => record.action === 'renderChunk')
      expect(chunkRuns.filter((record) => record.outcome === 'stopped').length, JSON.stringify(chunkRuns)).toBeGreaterThan(0)
      expect(chunkRuns.filter((record) => record.outcome === 'failed').map((record) => record.chunk)).toContain(3)
      expect(invocations.map((record) => record.action)).toEqual(expect.arrayContaining(['plan', 'notifyFailure', 'executionEnded']))

      const failure = (await stack.bucket.getJson<RenderFailureRecord>(`renders/${renderId}/failure.json`))!
      expect(failure).toMatchObject({code: 'PAGE_ERROR', chunk: 3, message: expect.stringMatching(/fails on purpose at 6 s/)})
      expect(await stack.bucket.getJson(`renders/${renderId}/stop.json`)).toMatchObject({reason: 'failed'})
      // The failure path called the webhook; the execution-end rule, which ran after it, did not again.
      expect(receiver.calls).toHaveLength(1)
      expect(receiver.calls[0].body).toMatchObject({id: renderId, status: 'failed', error: {code: 'PAGE_ERROR'}})

      // The cost counts the abandoned invocations too.
      const progress = await getRenderProgress(options)
      expect(progress.invocations).toEqual({
        succeeded: invocations.filter((record) => record.outcome === 'succeeded').length,
        failed: invocations.filter((record) => record.outcome === 'failed').length,
        stopped: invocations.filter((record) => record.outcome === 'stopped').length,
      })
      expect(progress.cost.requests).toBe(invocations.length)
      const gbSeconds = invocations.reduce((sum, record) => sum + (Math.ceil(record.durationMs) / 1000) * (record.memoryMb / 1024), 0)
      expect(progress.cost.lambdaGbSeconds).toBeCloseTo(gbSeconds, 2)
    } finally {
      await receiver.close()
    }
  })

  it('a cancel stops the running chunks: no scratch 30 s after the cancel, one CANCELLED webhook, no failure record', async () => {
    const receiver = await startReceiver(SECRET)
    try {
      const {renderId, options} = await start(['--variables', JSON.stringify({work: STILL_RUNNING_WORK})], receiver.url)
      // Bounded: cancel once frames are being captured.
      for (let tries = 0; tries < 300 && (await getRenderProgress(options)).frames.done === 0; tries++) await sleep(200)
      expect((await stack.bucket.listKeys(`scratch/${renderId}/progress/`)).length).toBeGreaterThan(0)

      const cancelled = await runCli(['lambda', 'cancel', renderId], {env: stack.env})
      expect(cancelled.code, cancelled.stderr).toBe(0)
      const ended = await getRenderProgress(options)
      expect(ended.status).toBe('ABORTED')

      expect(await scratchLeftAfterChunksEnded(renderId, ended.stoppedAt!)).toEqual([])
      const chunkRuns = (await readInvocations(stack.bucket, renderId)).filter((record) => record.action === 'renderChunk')
      // Chunks running at the cancel stopped; none failed (a chunk may have finished just before).
      expect(chunkRuns.filter((record) => record.outcome === 'stopped').length, JSON.stringify(chunkRuns)).toBeGreaterThan(0)
      expect(chunkRuns.filter((record) => record.outcome === 'failed')).toEqual([])
      expect(await stack.bucket.getJson(`renders/${renderId}/stop.json`)).toMatchObject({reason: 'cancelled'})
      expect(await stack.bucket.exists(`renders/${renderId}/cancelled.json`)).toBe(true)
      // The execution-end rule saw the cancel's own marker: no failure record, no second call.
      expect(await stack.bucket.exists(`renders/${renderId}/failure.json`)).toBe(false)
      expect(receiver.calls.map((call) => (call.body as {error: {code: string}}).error.code)).toEqual(['CANCELLED'])
    } finally {
      await receiver.close()
    }
  })

  it('a render past its --timeout fails TIMED_OUT through the failure path: record, webhook, no scratch', async () => {
    const receiver = await startReceiver(SECRET)
    try {
      // One chunk of 240 frames: at work when the 5 s run out, as four were, on one core instead of all.
      const {renderId, options} = await start(['--timeout', '5s', '--variables', '{"work": 20000000}'], receiver.url, ['--chunk-size', '240', '--concurrency-per-chunk', '1', '--keyframe-interval', '0.5'])
      const ended = await waitForEnd(options)
      expect(ended.status).toBe('FAILED')
      expect(ended.error?.code).toBe('TIMED_OUT')
      const failure = (await stack.bucket.getJson<RenderFailureRecord>(`renders/${renderId}/failure.json`))!
      expect(failure).toMatchObject({code: 'TIMED_OUT', error: 'Engine.TIMED_OUT', message: expect.stringMatching(/--timeout/)})
      const [call] = await receiver.waitForCalls(1)
      expect(call).toMatchObject({type: 'render.failed', signatureValid: true})
      expect(call.body).toMatchObject({id: renderId, error: {code: 'TIMED_OUT'}})
      // On a loaded machine the 5 s can run out while the plan is still made, before any chunk starts.
      expect(await scratchLeftAfterChunksEnded(renderId, ended.stoppedAt!, 'any')).toEqual([])
    } finally {
      await receiver.close()
    }
  })
})
