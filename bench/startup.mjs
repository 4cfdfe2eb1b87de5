// Time to the first frame: from starting `engine render` (a new process, as a user runs it) to its
// first captured-frame progress event, for the 1280x720 example with warm caches (the first run
// warms them and is reported apart). Run after `npm run build`: `node bench/startup.mjs`.
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'

const CLI = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const COMPOSITION = fileURLToPath(new URL('../examples/hello/index.html', import.meta.url))

/** Milliseconds from spawning the CLI to its first progress event, and to its exit. */
function timeRender(output) {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    let firstFrameMs
    let buffered = ''
    const child = spawn(process.execPath, [CLI, 'render', COMPOSITION, '--json', '-o', output], {stdio: ['ignore', 'pipe', 'ignore']})
    child.stdout.on('data', (chunk) => {
      buffered += chunk
      const lines = buffered.split('\n')
      buffered = lines.pop()
      for (const line of lines) if (firstFrameMs === undefined && line.includes('"type":"progress"')) firstFrameMs = performance.now() - started
    })
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve({firstFrameMs, totalMs: performance.now() - started}) : reject(new Error(`engine render exited ${code}`))))
  })
}

export async function benchStartup({runs = 3, log = console.log} = {}) {
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-startup-'))
  try {
    const cold = await timeRender(join(work, 'cold.mp4'))
    const warm = []
    for (let run = 0; run < runs; run++) warm.push(await timeRender(join(work, `warm-${run}.mp4`)))
    const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
    const firstFrame = median(warm.map((run) => run.firstFrameMs))
    log(`time to first frame (engine render, 1280x720 example, new process): ${Math.round(firstFrame)} ms warm (median of ${runs}), ${Math.round(cold.firstFrameMs)} ms on the first run; whole 4 s render ${Math.round(median(warm.map((run) => run.totalMs)))} ms`)
    return {firstFrameMs: firstFrame, coldFirstFrameMs: cold.firstFrameMs}
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchStartup()
