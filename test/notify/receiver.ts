import {createHmac, timingSafeEqual} from 'node:crypto'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface ReceivedCall {
  type: string
  deliveryId: string
  signatureValid: boolean
  body: Record<string, unknown>
  answeredWith: number
}

export interface Receiver {
  url: string
  calls: ReceivedCall[]
  /** Resolves once `count` calls have been received. */
  waitForCalls(count: number): Promise<ReceivedCall[]>
  close(): Promise<void>
}

/**
 * A webhook receiver on loopback that checks every signature the way the README tells users to,
 * and answers with `statuses` in order (then 200 forever).
 */
export async function startReceiver(secret: string, statuses: number[] = [], host = '127.0.0.1'): Promise<Receiver> {
  const calls: ReceivedCall[] = []
  const waiters: {count: number; resolve: () => void}[] = []
  const answers = [...statuses]
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      const timestamp = String(req.headers['x-engine-timestamp'] ?? '')
      const fresh = Math.abs(Date.now() / 1000 - Number(timestamp)) <= 300
      const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(raw).digest('hex'))
      const given = Buffer.from(String(req.headers['x-engine-signature'] ?? ''))
      const status = answers.shift() ?? 200
      calls.push({
        type: String(req.headers['x-engine-event']),
        deliveryId: String(req.headers['x-engine-delivery']),
        signatureValid: fresh && given.length === expected.length && timingSafeEqual(given, expected),
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
        answeredWith: status,
      })
      res.writeHead(status).end()
      for (const waiter of waiters.filter((w) => calls.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve()
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const {port} = server.address() as AddressInfo
  return {
    url: `http://${host}:${port}/hooks/render`,
    calls,
    waitForCalls: (count) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the receiver got ${calls.length} of ${count} calls within 30 s`)), 30_000)
        const done = () => {
          clearTimeout(timer)
          resolve(calls)
        }
        if (calls.length >= count) done()
        else waiters.push({count, resolve: done})
      }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
