// A webhook receiver that checks engine's signature: `node webhook-receiver.mjs [port]` with the
// secret in ENGINE_WEBHOOK_SECRET. It answers each call, prints its type, and exits after the
// first render.* or batch.* call: 0 when the signature was valid, 1 when not.
import {createHmac, timingSafeEqual} from 'node:crypto'
import {createServer} from 'node:http'

/** True when `rawBody` was signed with `secret` less than `toleranceSeconds` ago. */
export function verify(rawBody, headers, secret, toleranceSeconds = 300) {
  const timestamp = headers['x-engine-timestamp'] ?? ''
  if (!/^\d+$/.test(timestamp) || Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) return false
  const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex'))
  const given = Buffer.from(headers['x-engine-signature'] ?? '')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const seen = new Set()
const server = createServer((req, res) => {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    const rawBody = Buffer.concat(chunks)
    const valid = verify(rawBody, req.headers, process.env.ENGINE_WEBHOOK_SECRET ?? '')
    res.writeHead(valid ? 204 : 401).end()
    // Retries carry the same X-Engine-Delivery: handle each delivery once.
    const delivery = req.headers['x-engine-delivery']
    if (!valid || seen.has(delivery)) return valid || process.exit(1)
    seen.add(delivery)
    const event = JSON.parse(rawBody.toString('utf8'))
    console.log(`${event.type}: ${event.status} ${event.output ?? ''}`)
    server.close(() => process.exit(0))
  })
})
server.listen(Number(process.argv[2] ?? 8787), '127.0.0.1')
