import {createServer} from 'node:net'
import {afterEach, describe, expect, it} from 'vitest'
import {guardedLookup} from '../../src/lib/notify/address-policy.js'
import {deliverWebhook, renderPayload, webhookTarget, type AddressPolicy} from '../../src/lib/notify/index.js'
import {startReceiver, type Receiver} from './receiver.js'

const SECRET = 'test-secret-4f1c'
const payload = renderPayload({id: 'render-1', output: '/tmp/out.mp4', durationSeconds: 2, renderMs: 1234})
const SERVER_POLICY: AddressPolicy = {allowPrivate: false}

describe('webhook delivery', () => {
  let receiver: Receiver | undefined
  afterEach(async () => {
    await receiver?.close()
    receiver = undefined
  })

  it('signs the raw body, retries after a 500 with the same delivery id, and reports the delivery', async () => {
    receiver = await startReceiver(SECRET, [500])
    const delivery = await deliverWebhook({url: receiver.url, secret: SECRET}, payload)
    expect(delivery).toMatchObject({delivered: true, attempts: 2, statusCode: 200})
    expect(receiver.calls.map((call) => call.answeredWith)).toEqual([500, 200])
    expect(receiver.calls.every((call) => call.signatureValid)).toBe(true)
    expect(new Set(receiver.calls.map((call) => call.deliveryId))).toEqual(new Set([delivery.deliveryId]))
    expect(delivery.deliveryId).toMatch(/^[0-9a-f-]{36}$/)
    expect(receiver.calls[0].body).toEqual({
      type: 'render.completed',
      id: 'render-1',
      status: 'completed',
      output: '/tmp/out.mp4',
      poster: null,
      durationSeconds: 2,
      renderMs: 1234,
      error: null,
      row: null,
      data: null,
    })
  })

  it('a signature made with another secret does not verify', async () => {
    receiver = await startReceiver('the-receivers-secret')
    await deliverWebhook({url: receiver.url, secret: 'someone-elses'}, payload)
    expect(receiver.calls[0].signatureValid).toBe(false)
  })

  it('gives up after 3 attempts of 5xx and says why; a 4xx is final at once', async () => {
    receiver = await startReceiver(SECRET, [503, 502, 500, 500])
    const failed = await deliverWebhook({url: receiver.url, secret: SECRET}, payload, {retryDelaysMs: [10, 10]})
    expect(failed).toMatchObject({delivered: false, attempts: 3, statusCode: 500, error: 'the receiver answered HTTP 500'})
    expect(receiver.calls).toHaveLength(3)
    await receiver.close()

    receiver = await startReceiver(SECRET, [404])
    const rejected = await deliverWebhook({url: receiver.url, secret: SECRET}, payload, {retryDelaysMs: [10, 10]})
    expect(rejected).toMatchObject({delivered: false, attempts: 1, statusCode: 404})
  })

  it('retries a 429 (the receiver is rate-limiting) like a 5xx, and delivers once it is let through', async () => {
    receiver = await startReceiver(SECRET, [429, 429])
    const delivery = await deliverWebhook({url: receiver.url, secret: SECRET}, payload, {retryDelaysMs: [10, 10]})
    expect(delivery).toMatchObject({delivered: true, attempts: 3, statusCode: 200})
    expect(receiver.calls.map((call) => call.answeredWith)).toEqual([429, 429, 200])
  })

  it('retries a receiver that is not listening, then reports the network error', async () => {
    const port = await freePort()
    const delivery = await deliverWebhook({url: `http://127.0.0.1:${port}/x`, secret: SECRET}, payload, {retryDelaysMs: [10, 10]})
    expect(delivery).toMatchObject({delivered: false, attempts: 3})
    expect(delivery.error).toMatch(/ECONNREFUSED/)
  })

  it('a receiver that never answers times out within the bound', async () => {
    const silent = createServer(() => {})
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const {port} = silent.address() as {port: number}
    try {
      const delivery = await deliverWebhook({url: `http://127.0.0.1:${port}/x`, secret: SECRET}, payload, {retryDelaysMs: [10, 10], timeoutMs: 200})
      expect(delivery).toMatchObject({delivered: false, attempts: 3, error: 'no answer within 0.2 s'})
    } finally {
      silent.close()
    }
  })

  it('the server policy refuses loopback and private addresses, unless the operator names the host', async () => {
    receiver = await startReceiver(SECRET)
    for (const url of [receiver.url, receiver.url.replace('127.0.0.1', 'localhost'), 'http://10.1.2.3/x', 'http://169.254.169.254/latest', 'http://[::1]:9/x', 'http://2130706433/x']) {
      const delivery = await deliverWebhook({url, secret: SECRET}, payload, {policy: SERVER_POLICY})
      expect(delivery, url).toMatchObject({delivered: false, attempts: 0, error: expect.stringMatching(/^refused: /)})
    }
    expect(receiver.calls).toHaveLength(0)
    const allowed = await deliverWebhook({url: receiver.url, secret: SECRET}, payload, {policy: {allowPrivate: false, allowedHosts: ['127.0.0.1']}})
    expect(allowed.delivered).toBe(true)
  })

  it('names are checked after resolution: a name resolving to loopback is refused', async () => {
    const error = await new Promise<Error | null>((resolve) => guardedLookup(SERVER_POLICY)('localhost', {}, (failure) => resolve(failure)))
    expect(error?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1), which is not a public address/)
    const open = await new Promise<Error | null>((resolve) => guardedLookup({allowPrivate: true})('localhost', {}, (failure) => resolve(failure)))
    expect(open).toBeNull()
  })

  it('validates the target at the door: http(s) only, a secret required, private hosts refused for servers', () => {
    const base = {secret: 's', urlField: '--webhook', secretHint: 'pass --webhook-secret', policy: {allowPrivate: true}, code: 'INVALID_FLAG' as const}
    expect(() => webhookTarget({...base, url: 'ftp://example.com/x'})).toThrow(/--webhook: "ftp:\/\/example.com\/x" must be an http:\/\/ or https:\/\/ URL/)
    expect(() => webhookTarget({...base, url: 'file:///etc/passwd'})).toThrow(/must be an http/)
    expect(() => webhookTarget({...base, url: 'not a url'})).toThrow(/must be an absolute URL/)
    expect(() => webhookTarget({...base, url: 'https://example.com/' + 'a'.repeat(3000)})).toThrow(/--webhook/)
    expect(() => webhookTarget({...base, url: 'https://example.com/x', secret: '  '})).toThrow(/--webhook needs a signing secret: pass --webhook-secret/)
    expect(webhookTarget({...base, url: 'http://127.0.0.1:9/x'})).toEqual({url: 'http://127.0.0.1:9/x', secret: 's'})
    expect(() => webhookTarget({...base, policy: SERVER_POLICY, url: 'http://127.0.0.1:9/x'})).toThrow(/--allow-webhook-host/)
    expect(webhookTarget({...base, policy: SERVER_POLICY, url: 'https://example.com/x'}).url).toBe('https://example.com/x')
  })
})

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const {port} = server.address() as {port: number}
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}
