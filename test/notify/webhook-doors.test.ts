import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {afterAll, afterEach, beforeAll, describe, expect, it, vi} from 'vitest'
import {readManifest, renderBatch} from '../../src/lib/batch/index.js'
import {TEST_RETRY_ENV} from '../../src/lib/notify/deliver-webhook.js'
import {CARD, fakeRender, options, useScratchDir, writeRows} from '../batch/support.js'
import {FIXTURES} from '../render/support.js'
import {webhookFromFlags} from '../../src/cli/webhook-flags.js'
import {runCli} from '../support/run-cli.js'
import {FakeRenderer} from '../server/support/fake-render.js'
import {openStream, startTestServer, type TestServer} from '../server/support/test-server.js'
import {startReceiver, type Receiver} from './receiver.js'
import {PROCESSES} from '../support/timeouts.js'

const SECRET = 'doors-secret-9a7'

describe('webhooks from every door', PROCESSES, () => {
  const scratch = useScratchDir()
  let receiver: Receiver | undefined
  let testServer: TestServer | undefined
  // Still 3 attempts, 20 ms apart instead of 1 s and 3 s: the CLIs started here inherit it, and the in-process batch and server read it too.
  beforeAll(() => {
    vi.stubEnv(TEST_RETRY_ENV, '20')
  })
  afterAll(() => {
    vi.unstubAllEnvs()
  })
  afterEach(async () => {
    await receiver?.close()
    await testServer?.close()
    receiver = testServer = undefined
  })

  it('engine render --webhook: one signed render.completed once the output is in place; a failed render sends render.failed', async () => {
    receiver = await startReceiver(SECRET, [500])
    const output = join(scratch(), 'hooked.mp4')
    const result = await runCli(['render', join(FIXTURES, 'blocks.html'), '--quality', 'draft', '--fps', '5', '-q', '-o', output, '--webhook', receiver.url, '--webhook-data', '{"campaign":"spring","ticket":7}'], {
      env: {ENGINE_WEBHOOK_SECRET: SECRET},
    })
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(receiver.calls.map((call) => [call.type, call.answeredWith, call.signatureValid])).toEqual([
      ['render.completed', 500, true],
      ['render.completed', 200, true],
    ])
    expect(receiver.calls[0].deliveryId).toBe(receiver.calls[1].deliveryId)
    expect(receiver.calls[1].body).toMatchObject({status: 'completed', output, durationSeconds: 2, error: null, row: null, data: {campaign: 'spring', ticket: 7}, renderMs: expect.any(Number)})
    expect(existsSync(output)).toBe(true)

    const failing = await runCli(['render', join(FIXTURES, 'throws.html'), '-q', '-o', join(scratch(), 'never.mp4'), '--webhook', receiver.url, '--webhook-secret', SECRET])
    expect(failing.code).not.toBe(0)
    expect(receiver.calls[2]).toMatchObject({type: 'render.failed', signatureValid: true, body: {status: 'failed', output: null, error: {code: 'PAGE_ERROR'}}})

    const still = join(scratch(), 'hooked.png')
    const stillRun = await runCli(['still', join(FIXTURES, 'blocks.html'), '-q', '-o', still, '--webhook', receiver.url, '--webhook-secret', SECRET, '--webhook-data', '{"ticket":"T-9"}'])
    expect(stillRun.code, stillRun.stderr).toBe(0)
    expect(receiver.calls[3]).toMatchObject({type: 'render.completed', signatureValid: true, body: {status: 'completed', output: still, row: null, data: {ticket: 'T-9'}}})
  })

  it('a receiver that keeps failing never fails the render: the exit is 0 and a warning names the delivery', async () => {
    receiver = await startReceiver(SECRET, [503, 503, 503])
    const output = join(scratch(), 'unheard.mp4')
    const result = await runCli(['render', join(FIXTURES, 'blocks.html'), '--quality', 'draft', '--fps', '5', '-q', '-o', output, '--webhook', receiver.url, '--webhook-secret', SECRET])
    expect(result.code).toBe(0)
    expect(result.stderr).toMatch(/warning \[webhook-undelivered\]: http:\/\/127\.0\.0\.1:\d+\/hooks\/render after 3 attempt\(s\): the receiver answered HTTP 503/)
    expect(existsSync(output)).toBe(true)
  })

  it('hostile --webhook values exit before rendering, naming the flag and the fix', async () => {
    const output = join(scratch(), 'refused.mp4')
    const bad = await runCli(['render', join(FIXTURES, 'blocks.html'), '-o', output, '--webhook', 'file:///etc/passwd', '--webhook-secret', SECRET])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/--webhook: "file:\/\/\/etc\/passwd" must be an http:\/\/ or https:\/\/ URL/)
    const huge = await runCli(['render', join(FIXTURES, 'blocks.html'), '-o', output, '--webhook', 'https://example.com/x', '--webhook-secret', SECRET, '--webhook-data', JSON.stringify({note: 'x'.repeat(5000)})])
    expect(huge.code).toBe(1)
    expect(huge.stderr).toMatch(/error \[INVALID_FLAG\]: --webhook-data: is 5,011 bytes; at most 4,096 bytes of JSON are echoed/)
    expect(existsSync(output)).toBe(false)
    // The other refusals come from the same check the commands call before rendering (the two runs above show how the CLI reports it).
    const refusal = (flags: Parameters<typeof webhookFromFlags>[0], env: NodeJS.ProcessEnv = {}) => {
      try {
        webhookFromFlags(flags, env)
      } catch (error) {
        return error
      }
      return undefined
    }
    expect(refusal({webhook: 'https://example.com/x', 'webhook-secret': SECRET, 'webhook-data': '[1,2]'})).toMatchObject({code: 'INVALID_FLAG', message: expect.stringMatching(/--webhook-data: must be a JSON object such as \{"campaign":"spring"\}, got an array/)})
    expect(refusal({'webhook-data': '{}'})).toMatchObject({code: 'INVALID_FLAG', message: expect.stringMatching(/--webhook-data is echoed in webhook calls: add --webhook <url> or drop it/)})
    expect(refusal({webhook: 'https://example.com/x'}, {ENGINE_WEBHOOK_SECRET: ''})).toMatchObject({code: 'INVALID_FLAG', message: expect.stringMatching(/--webhook needs a signing secret: pass --webhook-secret/)})
  })

  it('--batch: one call per row (failures included) and one batch.completed; the manifest records each delivery', async () => {
    receiver = await startReceiver(SECRET, [500])
    const dir = scratch()
    const fake = fakeRender()
    const summary = await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, [{title: 'Ada', customer_id: 'c-1'}, {title: 'Bob', explode: true}, {title: 'Cy'}], 'hooked-rows.json'),
      options: options({output: join(dir, 'hooked/{index}.mp4')}),
      render: fake.render,
      cwd: dir,
      webhook: {url: receiver.url, secret: SECRET, data: {campaign: 'spring'}},
    })
    const calls = receiver.calls.filter((call) => call.answeredWith === 200)
    expect(calls).toHaveLength(4)
    expect(receiver.calls.every((call) => call.signatureValid)).toBe(true)
    const byRow = new Map(calls.map((call) => [(call.body.row as {index: number} | null)?.index ?? null, call.body]))
    expect(byRow.get(0)).toMatchObject({type: 'render.completed', output: join(dir, 'hooked/0.mp4'), durationSeconds: 0.5, row: {index: 0, data: {customer_id: 'c-1'}}, data: {campaign: 'spring'}})
    expect(byRow.get(1)).toMatchObject({type: 'render.failed', error: {code: 'PAGE_ERROR'}, row: {index: 1, data: {}}, data: {campaign: 'spring'}})
    expect(calls.at(-1)!.body).toMatchObject({type: 'batch.completed', status: 'failed', output: summary.manifest, counts: {completed: 2, failed: 1}, row: null, data: {campaign: 'spring'}})
    const manifest = (await readManifest(summary.manifest))!
    expect(manifest.rows.map((row) => row.webhook?.delivered)).toEqual([true, true, true])
    expect(manifest.webhook).toMatchObject({delivered: true, attempts: 1})
    expect(summary.undeliveredWebhooks).toEqual([])

    await receiver.close()
    const refused = await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, [{title: 'Dee'}], 'lost-rows.json'),
      options: options({output: join(dir, 'lost/{index}.mp4')}),
      render: fake.render,
      cwd: dir,
      webhook: {url: receiver.url, secret: SECRET},
    })
    const lost = (await readManifest(refused.manifest))!
    expect(lost.rows[0]).toMatchObject({status: 'completed', webhook: {delivered: false, attempts: 3, error: expect.stringMatching(/ECONNREFUSED/)}})
    expect(refused.undeliveredWebhooks.map((delivery) => delivery.row)).toEqual([0, null])
  }, 60_000)

  it('engine serve: webhook in the body, signed with the server secret; loopback only when the operator allows it', async () => {
    receiver = await startReceiver(SECRET, [500])
    const log: string[] = []
    const fake = new FakeRenderer({autoFinishMs: 10})
    testServer = await startTestServer({webhookSecret: SECRET}, {render: fake.render, log: (line) => log.push(line)})
    const refused = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'a'}, webhook: {url: receiver.url}})
    await expect(refused.done).rejects.toThrow(/body field "webhook.url": http:\/\/127\.0\.0\.1:\d+\/hooks\/render is refused: 127\.0\.0\.1 is not a public address.*--allow-webhook-host/)
    await testServer.close()

    testServer = await startTestServer({allowWebhookHosts: ['127.0.0.1']}, {render: fake.render})
    const unsigned = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'b'}, webhook: {url: receiver.url}})
    await expect(unsigned.done).rejects.toThrow(/has none: its operator starts it with --webhook-secret/)
    await testServer.close()

    testServer = await startTestServer({webhookSecret: SECRET, allowWebhookHosts: ['127.0.0.1']}, {render: fake.render, log: (line) => log.push(line)})
    const huge = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'h'}, webhook: {url: receiver.url, data: {note: 'x'.repeat(5000)}}})
    await expect(huge.done).rejects.toThrow(/body field "webhook.data": is 5,011 bytes; at most 4,096/)
    const stream = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'c'}, webhook: {url: receiver.url, data: {ticket: 'T-7'}}})
    const final = await stream.done
    expect(final.type).toBe('complete')
    const [first, second] = await receiver.waitForCalls(2)
    expect([first.answeredWith, second.answeredWith]).toEqual([500, 200])
    expect(first.deliveryId).toBe(second.deliveryId)
    expect(second).toMatchObject({type: 'render.completed', signatureValid: true, body: {id: final.requestId, output: `/render/${final.requestId}/output`, data: {ticket: 'T-7'}}})
    await expect.poll(() => log.find((line) => line.includes('webhook'))).toMatch(/render\.completed to .* delivered \(HTTP 200, 2 attempt\(s\)\)/)

    await receiver.close()
    const lost = openStream(testServer.connection, {composition: 'comp.html', variables: {id: 'd'}, webhook: {url: receiver.url}})
    expect((await lost.done).type).toBe('complete')
    await expect.poll(() => log.find((line) => line.includes('NOT delivered')), {timeout: 15_000}).toMatch(/webhook render\.completed to .* NOT delivered after 3 attempt\(s\): .*ECONNREFUSED/)
  }, 60_000)
})
