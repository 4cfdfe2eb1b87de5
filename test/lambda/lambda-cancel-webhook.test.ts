import {createServer, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {setTimeout as sleep} from 'node:timers/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getRenderProgress} from '../../packages/lambda/src/lib/lambda/index.js'
import {startReceiver} from '../notify/receiver.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES} from './support.js'
import {renderCancelKey} from '../../packages/lambda/src/lib/lambda/storage-keys.js'
import {sharedStack, type SharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'

const SECRET = 'cancel-hook-secret'

describe('lambda cancel and the render webhook', PROCESSES, () => {
  let stack: SharedStack

  beforeAll(async () => {
    stack = await sharedStack()
  })
  afterAll(async () => {
    await stack?.stop()
  })

  it('a cancelled render calls its webhook once with render.failed and CANCELLED', async () => {
    const receiver = await startReceiver(SECRET)
    try {
      const env = {...stack.env, ENGINE_WEBHOOK_SECRET: SECRET}
      const {renderId, options} = await startSlowRender(env, receiver.url)

      const cancelled = await runCli(['lambda', 'cancel', renderId], {env})
      expect(cancelled.code, cancelled.stderr).toBe(0)
      const [call] = await receiver.waitForCalls(1)
      expect(call).toMatchObject({type: 'render.failed', signatureValid: true})
      expect(call.body).toMatchObject({id: renderId, status: 'failed', output: null, error: {code: 'CANCELLED'}})
      expect((await getRenderProgress(options)).webhook).toMatchObject({type: 'render.failed', delivered: true})

      // A second cancel only cleans up again: no second call.
      expect((await runCli(['lambda', 'cancel', renderId], {env})).code).toBe(0)
      await sleep(300)
      expect(receiver.calls).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })

  it('records the cancel before it calls the webhook: a slow receiver does not hold up the failure path that waits for the record', async () => {
    let held: ServerResponse | undefined
    let recordedWhenCalled: boolean | undefined
    const receiver = createServer((request, response) => {
      request.resume()
      held = response
      void stack.bucket.exists(renderCancelKey(renderId)).then((exists) => (recordedWhenCalled = exists))
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    let renderId = ''
    try {
      const env = {...stack.env, ENGINE_WEBHOOK_SECRET: SECRET}
      ;({renderId} = await startSlowRender(env, `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`))
      const cancelling = runCli(['lambda', 'cancel', renderId], {env})
      // Bounded: the cancel reaches its webhook within seconds.
      for (let tries = 0; recordedWhenCalled === undefined && tries < 300; tries++) await sleep(100)
      expect(recordedWhenCalled).toBe(true)
      held!.writeHead(200).end()
      expect((await cancelling).code).toBe(0)
    } finally {
      held?.destroy()
      await new Promise((resolve) => receiver.close(resolve))
    }
  })

  /**
   * The slow fixture (frames that cost CPU on purpose): a render that cannot reach its assembly
   * before the cancel, which a small one did at load 20 (its webhook said render.completed). One
   * chunk with one capture worker: 240 costly frames in a row take longer than the four chunks of
   * two workers did, while until the cancel it keeps one browser busy instead of eight.
   */
  async function startSlowRender(env: Record<string, string>, webhook: string) {
    const started = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'slow'), '--chunk-size', '240', '--concurrency-per-chunk', '1', '--keyframe-interval', '0.5', '--variables', '{"work": 100000000}', '--webhook', webhook, '--json'], {env})
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    const options = {render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN}
    // Bounded: the plan step takes a second or two here.
    for (let tries = 0; (await getRenderProgress(options)).stage === 'planning' && tries < 100; tries++) await sleep(200)
    return {renderId, options}
  }
})
