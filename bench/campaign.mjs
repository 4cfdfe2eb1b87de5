// `npm run bench:campaign` (or `node bench/campaign.mjs [--rows N] [--big N] [--only still|video|bookkeeping]`):
// a personalised-video campaign as a user runs it, through the CLI. A CSV of --rows rows (default
// 1,000) with 30 % duplicate rows (the same values as an earlier row) and 5 % names too long for
// their box is rendered with a small still template (320x180 PNG) and a small video template
// (320x180, 1 s at 15 fps, draft) at `--batch-concurrency auto`, once with `--no-cache` and once
// with an empty render cache, and for each run it prints:
// - rows/min from the command's start (process spawn) to its exit, start-up and preflight included;
// - peak memory of the whole process tree (the engine, its browsers and encoders: the sum of their
//   resident sets, sampled every 200 ms) and of the engine's Node process alone;
// - bytes written apart from the outputs: the engine process's own writes to storage (exact, read
//   as it exits through bench/io-at-exit.mjs) less the outputs it wrote itself (stills; copies from
//   the cache) and less what it stored in the render cache, which is the bookkeeping (rows spool,
//   manifest, journal); and the cache's own bytes, reported apart;
// then the speed-up the cache gives (target >= 1.35x with 30 % duplicates), and for the still
// template the peak memory of a quarter of the rows beside the whole (bounded: rows are streamed).
// Last, bookkeeping bytes per row at 1,000 and --big rows (default 10,000): the batch machinery
// (rows spool, manifest, journal, result sheet) in process with a stand-in render of 20 ms a row,
// so that 10,000 rows take minutes, each less the fixed part a 10-row run writes (target: 10,000
// within 1.2x of 1,000), with its peak memory, and, where strace is installed, the 1,000 rows'
// bytes file by file. Bytes written are the kernel's count (whole 4 KB pages); run on a disk, not
// a tmpfs. Run after `npm run build`.
import {spawn} from 'node:child_process'
import {mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {loadavg, tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {createInterface} from 'node:readline'

const repo = new URL('..', import.meta.url).pathname
const STILL = new URL('./compositions/row-card.html', import.meta.url).pathname
const VIDEO = new URL('./compositions/row-video.html', import.meta.url).pathname
const IO_HOOK = new URL('./io-at-exit.mjs', import.meta.url).pathname
const PAGE = 4096

function argument(name, fallback) {
  const at = process.argv.indexOf(`--${name}`)
  return at === -1 ? fallback : process.argv[at + 1]
}
const ROWS = Number(argument('rows', 1000))
const BIG = Number(argument('big', 10000))
const ONLY = argument('only', undefined)

/** A seeded generator, so that every run renders the same campaign. */
function random(seed) {
  let state = seed >>> 0
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** `count` rows, `duplicateShare` of them repeating an earlier row's values and `longShare` with a name too long for its box. */
export function campaignRows(count, {duplicateShare = 0.3, longShare = 0.05, uniqueCount, seed = 37} = {}) {
  const next = random(seed)
  const unique = uniqueCount ?? Math.round(count * (1 - duplicateShare))
  const rows = []
  for (let index = 0; index < unique; index++) {
    const long = next() < longShare
    const name = long ? `Maximilian-Alexander Featherstonehaugh-Wolfeschlegel ${index}` : `Customer ${index}`
    rows.push([`"${name}"`, `#${((index * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6)}`, index % 1000])
  }
  while (rows.length < count) rows.push(rows[Math.floor(next() * unique)])
  for (let index = rows.length - 1; index > 0; index--) {
    const other = Math.floor(next() * (index + 1))
    ;[rows[index], rows[other]] = [rows[other], rows[index]]
  }
  return ['name,accent,score', ...rows.map((row) => row.join(','))].join('\n') + '\n'
}

/** Every process below `root` (by their parent ids in /proc), with `root` itself. */
function tree(root) {
  const parents = new Map()
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const text = readFileSync(`/proc/${name}/stat`, 'utf8')
      parents.set(Number(name), Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]))
    } catch {
      // Gone between the listing and the read.
    }
  }
  const found = [root]
  for (let index = 0; index < found.length; index++) for (const [pid, ppid] of parents) if (ppid === found[index]) found.push(pid)
  return found
}

function rssBytes(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * PAGE
  } catch {
    return 0
  }
}

function peakRssBytes(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  } catch {
    return 0
  }
}

/** What writing a file of `bytes` counts in the kernel's bytes written: whole 4 KB pages. */
const pages = (bytes) => Math.ceil(bytes / PAGE) * PAGE

/** Bytes of the files under `path`, each in whole pages (as writing them counted). */
function directoryBytes(path) {
  let total = 0
  for (const entry of readdirSync(path, {withFileTypes: true, recursive: true})) if (entry.isFile()) total += pages(statSync(join(entry.parentPath, entry.name)).size)
  return total
}

/**
 * Runs one batch through the CLI and measures it. `cache`: an empty render cache of its own, or
 * `--no-cache`.
 */
export async function runCampaign({command, template, rowsCsv, extension, cache, extraArgs = []}) {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bench-campaign-'))
  try {
    writeFileSync(join(dir, 'rows.csv'), rowsCsv)
    const cacheDir = join(dir, 'render-cache')
    const ioFile = join(dir, 'engine-io.txt')
    const args = [join(repo, 'bin/run.js'), command, template, '--batch', 'rows.csv', '-o', `out/{index}.${extension}`, '--batch-concurrency', 'auto', '--json', ...(cache ? [] : ['--no-cache']), ...extraArgs]
    const env = {...process.env, ENGINE_RENDER_CACHE: cacheDir, ENGINE_BENCH_IO_FILE: ioFile, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${IO_HOOK}`.trim()}
    const began = performance.now()
    const child = spawn(process.execPath, args, {cwd: dir, stdio: ['ignore', 'pipe', 'inherit'], env})
    let treePeak = 0
    let enginePeak = 0
    const sample = () => {
      treePeak = Math.max(treePeak, tree(child.pid).reduce((sum, pid) => sum + rssBytes(pid), 0))
      enginePeak = Math.max(enginePeak, peakRssBytes(child.pid))
    }
    const timer = setInterval(sample, 200)
    const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
    let done
    for await (const line of createInterface({input: child.stdout})) {
      const event = JSON.parse(line)
      if (event.type === 'batch-done') {
        done = event
        sample()
      }
    }
    const code = await exited
    const wallMs = performance.now() - began
    clearInterval(timer)
    if (code !== 0 || !done) throw new Error(`${command} --batch exited with ${code}`)
    const manifest = JSON.parse(readFileSync(join(dir, 'out', 'manifest.json'), 'utf8'))
    const rows = manifest.rows.length
    const outputBytes = manifest.rows.reduce((sum, row) => sum + (row.bytes ?? 0), 0)
    // Stills are written by the engine's Node process; videos by ffmpeg, except the copies from the cache.
    const engineOutputBytes = manifest.rows.reduce((sum, row) => sum + (command === 'still' || row.status === 'cached' ? pages(row.bytes ?? 0) : 0), 0)
    const cacheBytes = cache ? directoryBytes(cacheDir) : 0
    const io = readFileSync(ioFile, 'utf8')
    // Less what was written to files removed before they reached the disk (the rows spool).
    const engineWrites = Number(/^write_bytes: (\d+)/m.exec(io)?.[1] ?? NaN) - Number(/cancelled_write_bytes: (\d+)/.exec(io)?.[1] ?? 0)
    const bookkeeping = engineWrites - engineOutputBytes - cacheBytes
    return {
      rows,
      counts: done.counts,
      wallMs,
      rowsPerMinute: rows / (wallMs / 60_000),
      treePeakMb: treePeak / 1024 ** 2,
      enginePeakMb: enginePeak / 1024 ** 2,
      outputBytes,
      cacheBytes,
      bookkeepingBytes: bookkeeping,
      bookkeepingPerRow: bookkeeping / rows,
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

function describe(label, result) {
  const {counts} = result
  return (
    `${label}: ${result.rows} rows (${counts.completed} rendered, ${counts.cached} cached, ${counts.failed} failed) in ${(result.wallMs / 1000).toFixed(1)} s = ${result.rowsPerMinute.toFixed(1)} rows/min; ` +
    `peak RSS tree ${result.treePeakMb.toFixed(0)} MB, engine ${result.enginePeakMb.toFixed(0)} MB; outputs ${(result.outputBytes / 1024 ** 2).toFixed(1)} MB, ` +
    `bookkeeping ${(result.bookkeepingBytes / 1024).toFixed(0)} KB (${result.bookkeepingPerRow.toFixed(0)} B/row), render cache ${(result.cacheBytes / 1024 ** 2).toFixed(1)} MB`
  )
}

async function compare(name, command, template, extension, extraArgs) {
  const rowsCsv = campaignRows(ROWS)
  const uncached = await runCampaign({command, template, rowsCsv, extension, cache: false, extraArgs})
  console.log(describe(`${name}, --no-cache`, uncached))
  if (command === 'still') {
    // Peak memory at a quarter of the rows: the rows are streamed, so it should not grow with them.
    const small = await runCampaign({command, template, rowsCsv: campaignRows(Math.round(ROWS / 4)), extension, cache: false, extraArgs})
    console.log(describe(`${name}, --no-cache`, small))
    console.log(`${name}: peak RSS of the process tree ${small.treePeakMb.toFixed(0)} MB at ${small.rows} rows, ${uncached.treePeakMb.toFixed(0)} MB at ${uncached.rows} rows (engine ${small.enginePeakMb.toFixed(0)} and ${uncached.enginePeakMb.toFixed(0)} MB)`)
  }
  const cached = await runCampaign({command, template, rowsCsv, extension, cache: true, extraArgs})
  console.log(describe(`${name}, cache`, cached))
  console.log(`${name}: the cache gives ${(cached.rowsPerMinute / uncached.rowsPerMinute).toFixed(2)}x the rows/min of --no-cache (target >= 1.35x)`)
}

/** Milliseconds a stand-in row takes in the bookkeeping runs: rows finish at a pace like small real ones. */
const STAND_IN_ROW_MS = 20

/**
 * One bookkeeping run, in a process of its own (`--bookkeeping-child N`): renderBatch from dist/
 * over the campaign's rows, two at a time, with a stand-in render that takes STAND_IN_ROW_MS,
 * puts its output in place as a hard link to one file (which writes no data: a one-byte file of
 * its own would count a whole 4 KB page) and reports rows whose values came before as `cached`, as
 * the render cache would. Prints the process's bytes written to storage less the rows file it
 * wrote itself.
 */
async function bookkeepingChild(size) {
  const dist = new URL('../dist/src/lib/', import.meta.url)
  await import(new URL('builtin-plugins.js', dist).href)
  const {renderBatch} = await import(new URL('batch/render-batch.js', dist).href)
  const {resolveRenderOptions} = await import(new URL('render/resolve-options.js', dist).href)
  const {link, mkdir} = await import('node:fs/promises')
  // On a disk, not in memory: TMPDIR may be a tmpfs, where nothing counts as written to storage.
  const dir = mkdtempSync(join(process.env.ENGINE_BENCH_DISK_DIR ?? '/var/tmp', 'engine-bench-bookkeeping-'))
  try {
    const rowsCsv = campaignRows(size)
    const sample = join(dir, 'sample.png')
    writeFileSync(sample, 'x')
    writeFileSync(join(dir, 'rows.csv'), rowsCsv)
    await mkdir(join(dir, 'out'))
    const seen = new Set()
    const summary = await renderBatch({
      composition: STILL,
      batchFile: join(dir, 'rows.csv'),
      options: resolveRenderOptions({format: 'png-sequence', output: join(dir, 'out/{index}.png'), batchConcurrency: 2}),
      cwd: dir,
      render: async (request) => {
        await new Promise((resolve) => setTimeout(resolve, STAND_IN_ROW_MS))
        await link(sample, request.options.output)
        const values = JSON.stringify(request.variables)
        const cached = seen.has(values)
        seen.add(values)
        return {output: request.options.output, durationSeconds: 0, bytes: 1, cached}
      },
    })
    const written = Number(/write_bytes: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))[1])
    const peakRssMb = peakRssBytes(process.pid) / 1024 ** 2
    process.stdout.write(JSON.stringify({size, counts: summary.counts, bookkeepingBytes: written - Buffer.byteLength(rowsCsv) - 1, peakRssMb}) + '\n')
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}

/** Which bookkeeping file a path written by a batch is. */
function bookkeepingFile(path) {
  if (/\/\.manifest\.json\.[0-9a-f]+\.tmp$/.test(path)) return 'manifest.json rewrites'
  if (path.endsWith('/manifest.journal.jsonl')) return 'manifest.journal.jsonl'
  if (path.endsWith('/jobs.jsonl')) return 'rows spool (jobs.jsonl)'
  if (/\/\.results\.csv\.[0-9a-f]+\.tmp$/.test(path)) return 'results.csv'
  if (/\/rows\.csv$|\/sample\.png$/.test(path)) return "the bench's own rows file"
  return 'other files'
}

/**
 * The bytes each bookkeeping file takes per row, from `strace` (write calls and syncs by file) of
 * a bookkeeping child of `size` rows: the bytes the batch hands the system, file by file, and how
 * often it syncs each (each sync of a file that is then appended to costs a 4 KB page again in the
 * storage count). Undefined when strace is not installed.
 */
async function breakdown(size) {
  const trace = join(mkdtempSync(join(tmpdir(), 'engine-bench-strace-')), 'trace.txt')
  const child = spawn('strace', ['-f', '-qq', '-y', '-e', 'trace=write,pwrite64,writev,pwritev,fdatasync,fsync', '-o', trace, process.execPath, new URL(import.meta.url).pathname, '--bookkeeping-child', String(size)], {
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  const code = await new Promise((resolve) => child.on('exit', resolve).on('error', () => resolve(undefined)))
  if (code !== 0) return undefined
  const files = new Map()
  const entry = (name) => files.get(name) ?? files.set(name, {bytes: 0, writes: 0, syncs: 0}).get(name)
  for (const line of readFileSync(trace, 'utf8').split('\n')) {
    const written = /(?:write|pwrite64|writev|pwritev)\(\d+<([^>]+)>.*= (\d+)$/.exec(line)
    const synced = /(?:fdatasync|fsync)\(\d+<([^>]+)>/.exec(line)
    if (written && written[1].startsWith('/')) {
      const file = entry(bookkeepingFile(written[1]))
      file.bytes += Number(written[2])
      file.writes++
    } else if (synced) entry(bookkeepingFile(synced[1])).syncs++
  }
  rmSync(dirname(trace), {recursive: true, force: true})
  return files
}

/**
 * Bookkeeping bytes per row at 1,000 and BIG rows (rows spool, manifest, journal, result sheet:
 * what a batch writes to storage besides its outputs), less the fixed part a 10-row run writes, so
 * that the figures compare what each further row costs; then, with strace, the 1,000 rows' bytes
 * file by file. Stand-in renders keep the 10,000 rows to a few minutes.
 */
async function bookkeeping() {
  const run = async (size) => {
    const child = spawn(process.execPath, [new URL(import.meta.url).pathname, '--bookkeeping-child', String(size)], {stdio: ['ignore', 'pipe', 'inherit']})
    let output = ''
    for await (const chunk of child.stdout) output += chunk
    return JSON.parse(output.trim().split('\n').at(-1))
  }
  const base = await run(10)
  console.log(`bookkeeping, 10 rows (the fixed part): ${(base.bookkeepingBytes / 1024).toFixed(0)} KB`)
  const per = []
  for (const size of [1000, BIG]) {
    const result = await run(size)
    const marginal = (result.bookkeepingBytes - base.bookkeepingBytes) / (size - 10)
    console.log(`bookkeeping, ${size} rows (${result.counts.completed} completed, ${result.counts.cached} cached; stand-in renders of ${STAND_IN_ROW_MS} ms): ${(result.bookkeepingBytes / 1024).toFixed(0)} KB written to storage, ${marginal.toFixed(0)} B/row beyond the fixed part; peak RSS ${result.peakRssMb.toFixed(0)} MB`)
    per.push(marginal)
  }
  console.log(`bookkeeping bytes per row beyond the fixed part: ${BIG} rows / 1000 rows = ${(per[1] / per[0]).toFixed(2)}x (target <= 1.2x)`)
  const files = await breakdown(1000)
  if (!files) return console.log('bookkeeping by file: strace is not installed')
  for (const [name, file] of [...files].sort((a, b) => b[1].bytes - a[1].bytes)) {
    console.log(`bookkeeping by file, 1000 rows: ${name}: ${(file.bytes / 1000).toFixed(0)} B/row in ${(file.writes / 1000).toFixed(2)} writes/row, ${(file.syncs / 1000).toFixed(3)} syncs/row`)
  }
}

if (process.argv[2] === '--bookkeeping-child') await bookkeepingChild(Number(process.argv[3]))
else if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`load average at start: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`)
  if (!ONLY || ONLY === 'still') await compare('still campaign', 'still', STILL, 'png', [])
  if (!ONLY || ONLY === 'video') await compare('video campaign', 'render', VIDEO, 'mp4', ['--fps', '15', '--quality', 'draft'])
  if (!ONLY || ONLY === 'bookkeeping') await bookkeeping()
  console.log(`load average at end: ${loadavg().map((load) => load.toFixed(1)).join(' ')}`)
}
