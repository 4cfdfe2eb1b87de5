// The HTTP API of `engine serve`: its routes (the route table documented in create-server.ts,
// checked against the routes it registers), the request bodies (from their zod schemas), the
// server-sent events (their TypeScript type) and the status each error code is answered with.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {z} from 'zod'
import {declarationSource} from './api-reference.mjs'
import {loadCommands} from './cli-reference.mjs'
import {describeSchema} from './json-schema.mjs'
import {code, generatedHeader, table} from './markdown.mjs'

const SERVER_SOURCE = 'src/lib/server/create-server.ts'

/** Body fields that are not render options (render options take their flag's help text). */
const BODY_FIELDS = {
  composition: 'path of the composition inside the server\'s `--root` (exactly one of `composition` and `html`)',
  html: 'the composition as inline markup, written to a private temporary project of its own (relative asset URLs load nothing)',
  variables: 'variable values (at most 1,000 keys), merged over the declared defaults',
  webhook: '`{"url": "https://…"}`: called when the render ends, signed with the server\'s `--webhook-secret`; loopback and private addresses are refused unless the server allows the host (`--allow-webhook-host`)',
  network: '`false` renders without public URLs; `true` cannot override the server\'s `--no-network`',
  cancelOnDisconnect: '`true` cancels the render when this stream\'s connection closes; by default it keeps rendering (follow it again with `GET /render/:requestId/events`, cancel it with `DELETE /render/:requestId`)',
  outputName: 'the output\'s file name without extension (default: the composition\'s): 1-100 letters, digits, `.`, `_` or `-`, not starting with `.`; an `hls` playlist\'s segments are named after it (`engine render --server` sends its `--output` name)',
}

/** Routes as create-server.ts documents them in its header comment: `METHOD /path  description`. */
function documentedRoutes(source) {
  const routes = []
  for (const match of source.matchAll(/^\s*\*\s+(GET|POST|DELETE|PUT|PATCH)\s+(\/\S*)\s+(.+)$/gm)) routes.push({method: match[1], path: match[2], description: match[3].trim()})
  return routes
}

function registeredRoutes(source) {
  return [...source.matchAll(/app\.(get|post|delete|put|patch)\(\s*'([^']+)'/g)].map((match) => `${match[1].toUpperCase()} ${match[2]}`)
}

function bodyTable(schema, flags, extra = {}) {
  const json = z.toJSONSchema(schema, {io: 'input', unrepresentable: 'any'})
  return table(
    ['Field', 'Type', 'Meaning'],
    Object.entries(json.properties).map(([key, property]) => {
      const flagName = '--' + key.replace(/[A-Z]/g, (c) => '-' + c.toLowerCase())
      const description = extra[key] ?? BODY_FIELDS[key] ?? flags.get(flagName)
      if (description === undefined) throw new Error(`body field "${key}" has no description: add it to BODY_FIELDS in scripts/docs/http-reference.mjs`)
      return [code(key), describeSchema(property), description]
    }),
  )
}

function flagsOf(root, id) {
  const command = loadCommands(root).find((candidate) => candidate.id === id)
  return new Map(Object.values(command.flags).map((flag) => [`--${flag.name}`, flag.description]))
}

export async function httpReference(root) {
  const dist = (path) => import(pathToFileURL(join(root, 'dist/src/lib', path)).href)
  const {renderStreamBodySchema, MAX_VARIABLE_KEYS} = await dist('server/request-schema.js')
  const {stillBodySchema} = await dist('server/still-request.js')
  const {ERROR_DOCS} = await dist('errors/error-docs.js')
  const {httpStatus} = await dist('server/http-errors.js')
  const source = readFileSync(join(root, SERVER_SOURCE), 'utf8')
  const routes = documentedRoutes(source)
  const documented = routes.map((route) => `${route.method} ${route.path}`)
  const registered = registeredRoutes(source)
  const undocumented = registered.filter((route) => !documented.includes(route))
  const gone = documented.filter((route) => !registered.includes(route))
  if (undocumented.length || gone.length) {
    throw new Error(`${SERVER_SOURCE}: the route table in the comment above createServer does not match the routes it registers (undocumented: ${undocumented.join(', ') || 'none'}; not registered: ${gone.join(', ') || 'none'})`)
  }
  const byStatus = new Map()
  for (const name of Object.keys(ERROR_DOCS).sort()) {
    const status = httpStatus(name)
    if (!byStatus.has(status)) byStatus.set(status, [])
    byStatus.get(status).push(`[${code(name)}](errors.md#${name.toLowerCase()})`)
  }
  const text = [
    generatedHeader('HTTP API of `engine serve`', `the route table of ${SERVER_SOURCE}, the request schemas of src/lib/server/request-schema.ts and still-request.ts, and src/lib/server/stream-events.ts`),
    'Start the server with `engine serve` (flags: [cli/serve.md](cli/serve.md)); a task-first walk-through with Node and Python clients is in [the server guide](../guides/server.md).',
    '',
    'Every request passes, in order: the `Host` check (421), the `Origin` policy (403; CORS preflights answered for `--allow-origin` origins), the bearer token when the server has one (401; not for `/health`), and for bodies the JSON content type (415).',
    '',
    '## Routes',
    '',
    table(['Method', 'Path', 'What it does'], routes.map((route) => [route.method, code(route.path), route.description])),
    '',
    '## `POST /render/stream`',
    '',
    `A JSON object with these fields (unknown fields are refused; at most ${MAX_VARIABLE_KEYS} variables). The answer is a stream of server-sent events (below).`,
    '',
    bodyTable(renderStreamBodySchema, flagsOf(root, 'render')),
    '',
    '## `POST /still`',
    '',
    'A JSON object with these fields. The answer is the image itself (`image/png`, `image/jpeg` or `image/webp`, with headers `X-Engine-Frame` and `X-Engine-Time`); it waits for a render slot like a render.',
    '',
    bodyTable(stillBodySchema, flagsOf(root, 'still'), {format: 'the image format (default `png`); PNG and WebP keep transparency'}),
    '',
    '## Events of `POST /render/stream`',
    '',
    'Each event is one `data:` line holding one JSON object of this type:',
    '',
    '```ts',
    declarationSource(root, 'src/lib/server/stream-events.ts', 'StreamEvent'),
    '```',
    '',
    'The `start` event is the render\'s own `start` event (see [api.md](api.md), `RenderEvent`) without the server\'s file paths.',
    '',
    '## Errors',
    '',
    'Every error is answered as `{"error": {"code", "message", "details"}}`; on the event stream it is the final `error` event. Status by code:',
    '',
    table(['Status', 'Codes'], [...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [String(status), codes.join(', ')])),
    '',
  ]
  return new Map([['http-api.md', text.join('\n')]])
}
