import {createHmac} from 'node:crypto'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {deliverWebhook, TEST_RETRY_ENV} from '../../src/lib/notify/deliver-webhook.js'
import {redactUrl} from '../../src/lib/notify/redact-url.js'
import {FIXTURES} from '../render/support.js'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const SECRET = 'timestamp-secret-3f1'

interface Call {
  headers: IncomingHttpHeaders
  body: string
}

let server: Server
let origin: string
const calls: Call[] = []

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = ''
    request.on('data', (chunk) => (body += chunk))
    request.on('end', () => {
      calls.push({headers: request.headers, body})
      response.writeHead(calls.length === 1 ? 503 : 200).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
})

/** The check docs/guides/security.md tells receivers to make: signature over "<timestamp>.<body>", timestamp within 5 minutes. */
function verify(call: Call, now = Date.now()): boolean {
  const timestamp = String(call.headers['x-engine-timestamp'])
  const expected = 'sha256=' + createHmac('sha256', SECRET).update(`${timestamp}.${call.body}`).digest('hex')
  return call.headers['x-engine-signature'] === expected && Math.abs(now / 1000 - Number(timestamp)) <= 300
}

describe('webhook signatures cover a timestamp, so a recorded call cannot be replayed', PROCESSES, () => {
  it('every attempt carries X-Engine-Timestamp and a signature of "<timestamp>.<body>"; the body alone no longer verifies', async () => {
    calls.length = 0
    const delivery = await deliverWebhook({url: `${origin}/hook`, secret: SECRET}, {type: 'render.completed', id: 'r1'} as never, {retryDelaysMs: [1100]})
    expect(delivery).toMatchObject({delivered: true, attempts: 2})
    expect(calls).toHaveLength(2)
    for (const call of calls) {
      expect(call.headers['x-engine-timestamp']).toMatch(/^\d{10}$/)
      expect(verify(call)).toBe(true)
      // The scheme of the first round, the body alone, is not what is signed.
      expect(call.headers['x-engine-signature']).not.toBe('sha256=' + createHmac('sha256', SECRET).update(call.body).digest('hex'))
    }
    // Each attempt is signed at its own time.
    expect(Number(calls[1].headers['x-engine-timestamp'])).toBeGreaterThan(Number(calls[0].headers['x-engine-timestamp']))
    // Replayed ten minutes later, the same call fails the receiver's tolerance.
    expect(verify(calls[1], Date.now() + 10 * 60_000)).toBe(false)
  })
})

describe('webhook URLs are shown without their credentials', PROCESSES, () => {
  it('user:password@ and query values are replaced by *** in what a delivery records', async () => {
    expect(redactUrl('https://bob:s3cret@hooks.example.com/render?token=abc&x=1')).toBe('https://***:***@hooks.example.com/render?token=***&x=***')
    const delivery = await deliverWebhook({url: `http://alice:hunter2@127.0.0.1:9/hook?key=hunter2`, secret: SECRET}, {type: 'render.completed', id: 'r2'} as never, {retryDelaysMs: []})
    expect(delivery.delivered).toBe(false)
    expect(JSON.stringify(delivery)).not.toContain('hunter2')
  })

  it('the CLI warning for an undelivered call names the URL without the password', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-webhook-redact-'))
    try {
      const result = await runCli(['render', `${FIXTURES}/blocks.html`, '--quality', 'draft', '--fps', '5', '-q', '-o', join(dir, 'out.mp4'), '--webhook', 'http://alice:hunter2@127.0.0.1:9/hook?token=hunter2', '--webhook-secret', SECRET], {
        // Still 3 attempts at the closed port, without the 1 s and 3 s between them.
        env: {[TEST_RETRY_ENV]: '20'},
      })
      expect(result.code).toBe(0)
      expect(result.stderr).toMatch(/warning \[webhook-undelivered\]: http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:9\/hook\?token=\*\*\*/)
      expect(result.stderr).not.toContain('hunter2')
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
