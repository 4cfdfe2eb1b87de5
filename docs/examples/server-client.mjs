// Renders through a running `engine serve` and downloads the result:
// `node server-client.mjs <server URL> <composition> <output file> [more body fields as JSON]`,
// for example '{"variables": {"title": "Hi"}, "format": "webm"}'.
// The token, if the server has one, comes from ENGINE_SERVER_TOKEN. Node 18+ (fetch).
import {createWriteStream} from 'node:fs'
import {Readable} from 'node:stream'
import {pipeline} from 'node:stream/promises'

const [server, composition, output, fields = '{}'] = process.argv.slice(2)
const auth = process.env.ENGINE_SERVER_TOKEN ? {Authorization: `Bearer ${process.env.ENGINE_SERVER_TOKEN}`} : {}

const response = await fetch(new URL('/render/stream', server), {
  method: 'POST',
  headers: {'Content-Type': 'application/json', ...auth},
  body: JSON.stringify({composition, ...JSON.parse(fields)}),
})
if (!response.ok) throw new Error(`${response.status}: ${await response.text()}`)

// Server-sent events: each event is a `data: <json>` line followed by a blank line.
let buffer = ''
let finished
for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
  buffer += chunk
  let end
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const data = buffer.slice(0, end).split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trim()).join('\n')
    buffer = buffer.slice(end + 2)
    if (!data) continue
    const event = JSON.parse(data)
    if (event.type === 'queued') console.log(`queued at position ${event.position}`)
    if (event.type === 'progress') console.log(`${event.stage} ${event.frame}/${event.totalFrames}`)
    if (event.type === 'warning') console.warn(`warning [${event.code}]: ${event.message}`)
    if (event.type === 'complete' || event.type === 'error') finished = event
  }
}
if (finished?.type !== 'complete') throw new Error(`render failed: ${JSON.stringify(finished)}`)

const file = await fetch(new URL(finished.outputUrl, server), {headers: auth})
await pipeline(Readable.fromWeb(file.body), createWriteStream(output))
console.log(`${output}: ${finished.totalFrames} frames, ${finished.bytes} bytes`)
