// Where the CPU of a 1080p capture goes: traces one browser while it captures the reference
// composition (seek, begin-frame, screenshot), then sums the CPU time of each thread's top-level
// tasks, and the costliest kinds of work, per captured frame. `node bench/capture-profile.mjs`
// after `npm run build`; also run by `npm run bench`.
import {availableParallelism} from 'node:os'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {engineModule, standardPlan} from './engine-dist.mjs'


const CATEGORIES = ['toplevel', 'cc', 'viz', 'gpu', 'skia', 'blink', 'devtools.timeline', 'disabled-by-default-devtools.timeline', 'v8']
const FRAMES = 120

/** A pool stand-in that lends one browser and keeps it, so the trace covers every thread it runs. */
function tracingPool(launchBrowser, FrameClock) {
  const state = {}
  return {
    state,
    async acquire(choice) {
      state.browser ??= await launchBrowser(choice)
      return {browser: state.browser, clock: (state.clock ??= new FrameClock()), release: async () => {}}
    },
  }
}

async function readTrace(session, stream) {
  let text = ''
  for (;;) {
    const chunk = await session.send('IO.read', {handle: stream, size: 1 << 20})
    text += chunk.base64Encoded ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data
    if (chunk.eof) break
  }
  await session.send('IO.close', {handle: stream})
  return JSON.parse(text).traceEvents ?? JSON.parse(text)
}

/**
 * Each thread's outermost top-level tasks. Chromium also marks some tasks nested in another
 * (a raster task inside its thread-pool task, a mojo watcher inside a message-loop task) as
 * top-level; counted again they would add their CPU twice and look like a second thread running.
 */
function outermostTasks(events) {
  const byThread = new Map()
  for (const event of events) {
    if (event.ph !== 'X' || event.cat !== 'toplevel' || !(event.dur > 0)) continue
    const key = `${event.pid}:${event.tid}`
    if (!byThread.has(key)) byThread.set(key, [])
    byThread.get(key).push(event)
  }
  const outermost = []
  for (const tasks of byThread.values()) {
    tasks.sort((a, b) => a.ts - b.ts || b.dur - a.dur)
    let end = -Infinity
    for (const task of tasks) {
      if (task.ts < end) continue
      outermost.push(task)
      end = task.ts + task.dur
    }
  }
  return outermost
}

/**
 * How many of the browser's threads run a task at once, as shares of the traced wall time: a
 * capture whose steps wait on each other (draw, copy out, encode) keeps one thread busy at a time,
 * and only a pipeline across frames would keep more.
 */
function concurrency(tasks) {
  const edges = tasks.flatMap((task) => [[task.ts, 1], [task.ts + task.dur, -1]])
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  const time = [0, 0, 0, 0]
  let running = 0
  let last = edges[0]?.[0] ?? 0
  for (const [at, change] of edges) {
    time[Math.min(running, 3)] += at - last
    running += change
    last = at
  }
  const total = time.reduce((sum, value) => sum + value, 0) || 1
  return time.map((value) => value / total)
}

/** CPU ms of each thread's top-level tasks, and of the costliest event names below them. */
function summarise(events, tasks, frames) {
  const names = new Map()
  for (const event of events) if (event.ph === 'M' && event.name === 'thread_name') names.set(`${event.pid}:${event.tid}`, event.args.name)
  const threadOf = (event) => names.get(`${event.pid}:${event.tid}`) ?? `tid ${event.tid}`
  const threads = new Map()
  const work = new Map()
  for (const task of tasks) {
    const thread = threadOf(task)
    threads.set(thread, (threads.get(thread) ?? 0) + (task.tdur ?? task.dur) / 1000)
  }
  for (const event of events) {
    if (event.ph !== 'X' || event.cat === 'toplevel') continue
    const key = `${threadOf(event)}: ${event.name}`
    work.set(key, (work.get(key) ?? 0) + (event.dur ?? 0) / 1000)
  }
  const perFrame = (map) => [...map].map(([name, ms]) => [name, ms / frames]).sort((a, b) => b[1] - a[1])
  return {threads: perFrame(threads), work: perFrame(work)}
}

export async function benchCaptureProfile({log = console.log} = {}) {
  const {launchBrowser, closeBrowser} = await engineModule('browser/launch-browser.js')
  const {FrameClock} = await engineModule('browser/browser-pool.js')
  const {openCaptureWorker} = await engineModule('capture/capture-worker.js')

  const composition = fileURLToPath(new URL('./compositions/chart.html', import.meta.url))
  const {plan, browser} = await standardPlan(composition)
  const pool = tracingPool(launchBrowser, FrameClock)
  const worker = await openCaptureWorker(plan, {browser, pool})
  const session = await pool.state.browser.target().createCDPSession()
  // Warm up first: the page's first frames are slower and not what a render spends per frame.
  await worker.captureRange({start: 0, end: 10}, () => {})
  await session.send('Tracing.start', {traceConfig: {includedCategories: CATEGORIES, enableSampling: false}, transferMode: 'ReturnAsStream'})
  const started = performance.now()
  let bytes = 0
  await worker.captureRange({start: 10, end: 10 + FRAMES}, (_index, image) => void (bytes += image.length))
  const seconds = (performance.now() - started) / 1000
  const done = new Promise((resolve) => session.once('Tracing.tracingComplete', resolve))
  await session.send('Tracing.end')
  const {stream} = await done
  const events = await readTrace(session, stream)
  await worker.close()
  await closeBrowser(pool.state.browser)

  const tasks = outermostTasks(events)
  const {threads, work} = summarise(events, tasks, FRAMES)
  const total = threads.reduce((sum, [, ms]) => sum + ms, 0)
  log(`capture profile: ${FRAMES} frames of ${plan.width}x${plan.height} in ${seconds.toFixed(2)} s (${(FRAMES / seconds).toFixed(1)} frames/s), ${(bytes / FRAMES / 1024).toFixed(0)} KiB per JPEG, ${availableParallelism()} cores`)
  log(`  browser CPU in top-level tasks: ${total.toFixed(1)} ms per frame`)
  const [none, one, two, more] = concurrency(tasks).map((share) => `${(share * 100).toFixed(0)} %`)
  log(`  browser threads running at once: none ${none}, one ${one}, two ${two}, three or more ${more} of the time`)
  for (const [name, ms] of threads.slice(0, 8)) log(`    ${name.padEnd(40)} ${ms.toFixed(1).padStart(6)} ms/frame (${((ms / total) * 100).toFixed(0)} %)`)
  log('  costliest work (wall time inside tasks, nested events overlap):')
  for (const [name, ms] of work.filter(([name]) => !/: (RunTask|ThreadControllerImpl::RunTask)$/.test(name)).slice(0, 14)) log(`    ${name.slice(0, 70).padEnd(72)} ${ms.toFixed(1).padStart(6)} ms/frame`)
  return {framesPerSecond: FRAMES / seconds, cpuMsPerFrame: total, threads}
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchCaptureProfile()
