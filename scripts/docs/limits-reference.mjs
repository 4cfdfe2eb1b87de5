// The limits reference: every bound engine puts on an input or a resource, with its value read
// from the constant the code enforces (so the page cannot drift from the code), the error or
// status past it, and how to change it where it can be changed.
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {generatedHeader, table} from './markdown.mjs'

function bytes(value) {
  const units = [['GiB', 1024 ** 3], ['MiB', 1024 ** 2], ['KiB', 1024]]
  for (const [unit, size] of units) if (value >= size && value % size === 0) return `${(value / size).toLocaleString('en-US')} ${unit}`
  return `${value.toLocaleString('en-US')} bytes`
}
const count = (value) => value.toLocaleString('en-US')
const seconds = (ms) => `${count(ms / 1000)} s`

export async function limitsReference(root) {
  const lib = (path) => import(pathToFileURL(join(root, 'dist/src/lib', path)).href)
  const {COMPILE_BUDGET} = await lib('compose/compile-budget.js')
  const {MAX_READY_TIMEOUT_SECONDS} = await lib('compose/check-composition-attributes.js')
  const {MAX_FPS} = await lib('plan/fps.js')
  const {MAX_SIDE_PIXELS} = await lib('plan/drawable-size.js')
  const {MAX_WORKERS, MIN_SCALE, MAX_SCALE} = await lib('plan/render-options.js')
  const {DEFAULT_RENDER_LIMITS} = await lib('plan/render-limits.js')
  const {MAX_CELL_CHARS, MAX_LINE_BYTES, MAX_COLUMNS} = await lib('batch/rows/row-limits.js')
  const {MAX_WEBHOOK_DATA_BYTES} = await lib('notify/webhook-data.js')
  const {ATTEMPT_TIMEOUT_MS, RETRY_DELAYS_MS} = await lib('notify/deliver-webhook.js')
  const {MAX_JSON_DEPTH} = await lib('server/json-depth.js')
  const {MAX_BODY_BYTES} = await lib('server/read-json-body.js')
  const {MAX_VARIABLE_KEYS} = await lib('server/request-schema.js')
  const {SERVER_COMPILE_LIMITS} = await lib('server/compile-off-thread.js')
  const {DEFAULT_KEEP_OUTPUTS} = await lib('server/server-settings.js')
  const {FINISHED_JOURNALS_KEPT} = await lib('server/render-service.js')
  const {RENDER_DEFAULTS} = await lib('plan/render-options.js')
  const {MAX_SERVED_BYTES, RENDER_DOWNLOAD_BYTES} = await lib('sandbox/page-requests.js')
  const {MAX_DOWNLOAD_BYTES, DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS} = await lib('sandbox/fetch-remote.js')
  const {DEFAULT_DOWNLOAD_CACHE_BYTES, DOWNLOAD_CACHE_MAX_ENV} = await lib('sandbox/download-cache.js')
  const {DEFAULT_RENDER_CACHE_BYTES, RENDER_CACHE_MAX_ENV} = await lib('render-cache/render-cache-settings.js')
  const {MAX_IMAGE_BYTES} = await lib('variables/image-values.js')
  const {MAX_CAPTION_BYTES, MAX_CAPTION_CUES} = await lib('captions/parse-captions.js')
  const {MAX_KEY_BYTES} = await lib('render/storage-key.js')
  const {MAX_OUTPUT_NAME_BYTES} = await lib('render/output-name-length.js')
  const {MAX_SHARDS} = await lib('shard/shard-spec.js')
  const {SWEEP_AFTER_MS} = await lib('files/temp-directory.js')
  const {DEFAULT_POOL_OPTIONS} = await lib('browser/browser-pool.js')
  const maxPixels = DEFAULT_RENDER_LIMITS.maxPixels

  const section = (title, intro, rows) => [`## ${title}`, '', intro, '', table(['Limit', 'Value', 'Past it', 'Set with', 'Why, or more'], rows), '']
  const text = [
    generatedHeader('Limits', 'the constants the code enforces (scripts/docs/limits-reference.mjs names each one)'),
    'Every bound engine puts on what it is given, checked before the costly step. A bound that is crossed is refused with a typed error naming the field, the value and the limit ' +
      '([error codes](errors.md)); "fixed" means no setting changes it. Why each limit exists: [security](../guides/security.md).',
    '',
    ...section('Compositions', 'Every door (`render`, `still`, `lint`, `serve`, Lambda) compiles under one budget.', [
      ['elements, sub-compositions inlined', count(COMPILE_BUDGET.maxElements), '`LIMIT_EXCEEDED`', 'fixed', "a file is refused before it is parsed when it has more start tags"],
      ['nesting depth of elements', count(COMPILE_BUDGET.maxDepth), '`LIMIT_EXCEEDED`', 'fixed', "Chromium's own parser nests no deeper"],
      ['sub-composition instances', count(COMPILE_BUDGET.maxInstances), '`LIMIT_EXCEEDED`', 'fixed', "16 files each including the next twice would otherwise be 65,534"],
      ['root `data-duration` (written or from the timeline)', `${count(COMPILE_BUDGET.maxDurationSeconds)} s`, '`LIMIT_EXCEEDED`', 'fixed', "a root of 10^9 s planned segments until the process ran out of memory"],
      ['`data-ready-timeout`', `${MAX_READY_TIMEOUT_SECONDS} s`, '`COMPOSITION_INVALID`', 'fixed', ""],
      ['frame rate (`data-fps`, `--fps`)', `${MAX_FPS} fps`, '`COMPOSITION_INVALID` / `INVALID_FLAG`', 'fixed', ""],
      ['`data-width`, `data-height`', `${count(MAX_SIDE_PIXELS)} px`, '`COMPOSITION_INVALID`', 'fixed', ""],
      ['`--scale`', `${MIN_SCALE}-${MAX_SCALE}`, '`INVALID_FLAG`', 'fixed', ""],
      ['`--workers`', count(MAX_WORKERS), '`INVALID_FLAG`', 'fixed', ""],
      ['a captions file', `${bytes(MAX_CAPTION_BYTES)}, ${count(MAX_CAPTION_CUES)} cues`, '`CAPTIONS_INVALID`', 'fixed', ""],
    ]),
    ...section('Files a page loads', 'Project files and public URLs; remote files go through the download cache.', [
      ['one file a page loads (project file or download)', bytes(MAX_SERVED_BYTES), 'the request fails (a `request-failed` warning)', 'fixed', "refused by its Content-Length before the body is read, cut off past it otherwise"],
      ['one media source download (video, audio)', bytes(MAX_DOWNLOAD_BYTES), 'the download fails', 'fixed', "the same rule"],
      ['all downloads of one render', bytes(RENDER_DOWNLOAD_BYTES), 'further downloads fail', 'fixed', "files already in the cache cost nothing"],
      ['one download\'s time; redirects', `${seconds(DOWNLOAD_TIMEOUT_MS)}; ${MAX_REDIRECTS}`, 'the download fails', 'fixed', ""],
      ['an `image` variable\'s file', bytes(MAX_IMAGE_BYTES), '`INVALID_VARIABLES` / `BATCH_PREFLIGHT`', 'fixed', ""],
      ['the download cache (`$ENGINE_CACHE_DIR/media/downloads`)', bytes(DEFAULT_DOWNLOAD_CACHE_BYTES), 'least recently used files out', `\`${DOWNLOAD_CACHE_MAX_ENV}\``, "files used in the last 2 minutes stay; sizes such as `500M`, `10G` or bytes"],
      ['the render cache (`$ENGINE_CACHE_DIR/renders`)', bytes(DEFAULT_RENDER_CACHE_BYTES), 'least recently used entries out', `\`${RENDER_CACHE_MAX_ENV}\`; \`ENGINE_RENDER_CACHE=off\``, "an entry is reused only when its record is well-formed (no control characters, no path out of the entry or the project, no links) and its files match their recorded size and sha256"],
    ]),
    ...section('Batches', 'Rows files (CSV, TSV, JSON Lines, JSON), outputs and shards.', [
      ['a line (CSV, TSV, JSON Lines), a CSV record, a row of a `.json` file', bytes(MAX_LINE_BYTES), '`BATCH_LINE_TOO_LONG`, as soon as it is crossed', 'fixed', "a 200 MB single-cell CSV stops after about 4 MB read"],
      ['a cell', `${count(MAX_CELL_CHARS)} characters`, '`BATCH_CELL_TOO_LARGE`', 'fixed', "the error names the line and column"],
      ['columns (keys) of a row', count(MAX_COLUMNS), '`BATCH_TOO_MANY_COLUMNS`', 'fixed', ""],
      ['an output file name (a path segment)', `${MAX_OUTPUT_NAME_BYTES} bytes`, '`INVALID_FLAG` / `BATCH_PREFLIGHT`', 'fixed', ""],
      ['a storage key (`s3://` outputs)', `${count(MAX_KEY_BYTES)} bytes`, '`INVALID_STORAGE_KEY`', 'fixed', ""],
      ['shards (`--shard I/N`)', count(MAX_SHARDS), '`INVALID_FLAG`', 'fixed', ""],
    ]),
    ...section('Webhooks', 'The call engine makes when a render or a row ends.', [
      ['caller data (`--webhook-data`, `webhookData`)', `${count(MAX_WEBHOOK_DATA_BYTES)} bytes of JSON`, '`INVALID_FLAG` (CLI), 400 (server)', 'fixed', ""],
      ['time per attempt', seconds(ATTEMPT_TIMEOUT_MS), 'the attempt fails', 'fixed', ""],
      ['attempts', `${RETRY_DELAYS_MS.length + 1} (waits of ${RETRY_DELAYS_MS.map((ms) => seconds(ms)).join(' and ')})`, 'a `webhook-undelivered` warning; the render is not failed', 'fixed', ""],
    ]),
    ...section('`engine serve`', 'What one request may cost; the server refuses more before it renders.', [
      ['request body', bytes(MAX_BODY_BYTES), '413', 'fixed', ""],
      ['nesting of arrays and objects in a body', count(MAX_JSON_DEPTH), '400, before the body is parsed', 'fixed', "a 100,000-deep value overflowed the stack (500) before this limit"],
      ['variables per request (`/render/stream` and `/still`)', count(MAX_VARIABLE_KEYS), '413', 'fixed', ""],
      ['seconds of video per request', `${count(DEFAULT_RENDER_LIMITS.maxDurationSeconds)} s`, '`LIMIT_EXCEEDED`', '`--max-duration`', ""],
      ['pixels per frame as drawn (renders, posters, `/still`)', `${count(maxPixels)} (3840x2160)`, '`LIMIT_EXCEEDED`', '`--max-pixels` (count or `WxH`)', "`scale` included: a scale of 4 would otherwise draw 16x the limit"],
      ['compile time and heap per request', `${SERVER_COMPILE_LIMITS.seconds} s, ${count(SERVER_COMPILE_LIMITS.heapMb)} MB`, '`LIMIT_EXCEEDED`', 'fixed', "compiled in a worker thread, so `/health` and SIGTERM are answered meanwhile"],
      ['renders at once', count(RENDER_DEFAULTS.maxConcurrentRenders), 'requests wait in the queue', '`--max-concurrent-renders`, `PRODUCER_MAX_CONCURRENT_RENDERS`', ""],
      ['waiting requests', 'unlimited', '429', '`--max-queue`', ""],
      ['capture workers per request', 'CPU cores minus 2', 'capped, with a `workers-capped` warning', '`--max-workers`', ""],
      ['idle browsers kept warm', `\`--max-concurrent-renders\` x \`--max-workers\`, ${seconds(DEFAULT_POOL_OPTIONS.idleTimeoutMs)} each`, 'the least recently used is ended', '(follows the flags)', ""],
      ['finished outputs kept', count(DEFAULT_KEEP_OUTPUTS), 'older ones are deleted', '`--keep-outputs`', ""],
      ['finished requests whose status and events stay readable', count(FINISHED_JOURNALS_KEPT), '404 for older ones', 'fixed', "each keeps its lifecycle events, warnings (collapsed per code) and newest progress only"],
    ]),
    ...section('On disk', 'What engine leaves behind.', [
      ['leftover temporary directories of processes that are gone', `swept after ${count(SWEEP_AFTER_MS / 60_000)} min`, 'removed by the next run', 'fixed', ""],
    ]),
  ]
  return new Map([['limits.md', text.join('\n')]])
}
