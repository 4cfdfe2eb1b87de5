// This checkout's `engine render` against another renderer on the same composition, in alternating
// runs (A B, B A, …) so that a machine whose load drifts treats both alike. Each run is a new
// process, as a user starts it, at the defaults with `--quality standard`. Prints per pair the wall
// time and the CPU time (user+sys of the process and everything it started, sampled while they
// run: robust to other load),
// then the medians, the ratio of the two, and whether the outputs are byte-identical (or, against
// the peer, their PSNR).
//
//   node bench/versus.mjs --build <checkout> [--pairs 3] [composition]   another build of engine
//   node bench/versus.mjs --peer [--pairs 3] [composition]               the hyperframes npm package
//
// The peer is the one `/work/shared/corpus/compare.sh` installs (hyperframes@0.8.170 in
// ~/.cache/engine-corpus-peer, or ENGINE_BENCH_PEER); it renders the same HTML vocabulary with
// `window.__hyperframes` for `window.__engine`.
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {homedir, tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {parseArgs} from 'node:util'
import {loadAverage, trackCpu} from './cpu-meter.mjs'

const HERE = dirname(fileURLToPath(import.meta.url))
const CHECKOUT = join(HERE, '..')
export const REFERENCE = join(HERE, 'compositions', 'chart.html')
export const PEER_DIR = process.env.ENGINE_BENCH_PEER ?? join(homedir(), '.cache', 'engine-corpus-peer')
const PEER_CLI = join(PEER_DIR, 'package', 'bin', 'hyperframes.mjs')

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

/** Runs a command to completion; returns wall seconds and the CPU seconds of it and its descendants. */
export function timed(command, args, options) {
  return new Promise((resolve, reject) => {
    const cpu = trackCpu()
    const started = performance.now()
    const child = spawn(command, args, {stdio: ['ignore', 'ignore', 'pipe'], ...options})
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-2000)))
    child.on('error', (error) => {
      cpu.stop()
      reject(error)
    })
    child.on('close', (code) => {
      const cpuSeconds = cpu.stop()
      if (code !== 0) return reject(new Error(`${basename(command)} ${args.slice(0, 3).join(' ')} exited ${code}: ${stderr}`))
      resolve({seconds: (performance.now() - started) / 1000, cpuSeconds})
    })
  })
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex')

/** `engine render` of a checkout (its bin/run.js, built), at the defaults. */
export function engineRunner(checkout, label) {
  return {
    label,
    run: (composition, output) => timed(process.execPath, [join(checkout, 'bin', 'run.js'), 'render', composition, '--quality', 'standard', '--quiet', '-o', output]),
  }
}

/** The peer's `render`, on a copy of the composition that names its runtime global. */
export function peerRunner(work) {
  return {
    label: 'hyperframes 0.8.170',
    async run(composition, output) {
      const project = join(work, 'peer-project')
      rmSync(project, {recursive: true, force: true})
      execFileSync('cp', ['-r', dirname(composition), project])
      const html = readFileSync(composition, 'utf8').replaceAll('__engine', '__hyperframes').replace(/src="[^"]*gsap\.min\.js"/, 'src="gsap.min.js"')
      writeFileSync(join(project, 'index.html'), html)
      copyFileSync(join(CHECKOUT, 'node_modules', 'gsap', 'dist', 'gsap.min.js'), join(project, 'gsap.min.js'))
      return timed(process.execPath, [PEER_CLI, 'render', '--quality', 'standard', '--output', output], {cwd: project, env: peerEnv()})
    },
  }
}

/** The peer's CLI and the environment it runs in: no update checks or telemetry, the system browser and ffmpeg. */
export const PEER_COMMAND = PEER_CLI
export function peerEnv() {
  const ffmpeg = execFileSync('sh', ['-c', 'command -v ffmpeg']).toString().trim()
  const ffprobe = execFileSync('sh', ['-c', 'command -v ffprobe']).toString().trim()
  const browser = '/usr/bin/chromium-headless-shell'
  return {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    HYPERFRAMES_NO_UPDATE_CHECK: '1',
    HYPERFRAMES_NO_AUTO_INSTALL: '1',
    HYPERFRAMES_SKIP_SKILLS: '1',
    DO_NOT_TRACK: '1',
    HYPERFRAMES_TELEMETRY_DISABLED: '1',
    HYPERFRAMES_BROWSER_PATH: browser,
    PRODUCER_HEADLESS_SHELL_PATH: browser,
    HYPERFRAMES_FFMPEG_PATH: ffmpeg,
    HYPERFRAMES_FFPROBE_PATH: ffprobe,
  }
}

export function peerInstalled() {
  return existsSync(PEER_CLI)
}

/** Average PSNR of `a` against `b` over all frames (ffmpeg's psnr filter), in dB. */
function psnr(a, b) {
  const out = spawnSync('ffmpeg', ['-hide_banner', '-i', a, '-i', b, '-lavfi', '[0:v][1:v]psnr', '-f', 'null', '-'], {encoding: 'utf8'}).stderr
  return out.match(/average:([0-9.inf]+)/)?.[1]
}

function frameCount(file) {
  return Number(execFileSync('ffprobe', ['-v', 'error', '-count_frames', '-select_streams', 'v:0', '-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file]).toString().trim())
}

/**
 * Alternating runs of `ours` and `theirs`; returns the medians and their ratios (ours / theirs:
 * above 1 means ours is faster, or cheaper in CPU).
 */
export async function versus({ours, theirs, pairs = 3, composition = REFERENCE, log = console.log, compareBytes = true}) {
  const work = mkdtempSync(join(tmpdir(), 'engine-versus-'))
  const results = {ours: [], theirs: []}
  try {
    let frames
    for (let pair = 0; pair < pairs; pair++) {
      const order = pair % 2 === 0 ? ['ours', 'theirs'] : ['theirs', 'ours']
      const outputs = {}
      for (const side of order) {
        const runner = side === 'ours' ? ours : theirs
        outputs[side] = join(work, `${side}-${pair}.mp4`)
        results[side].push(await runner.run(composition, outputs[side]))
      }
      frames ??= frameCount(outputs.ours)
      const same = compareBytes ? sha256(outputs.ours) === sha256(outputs.theirs) : undefined
      const describe = (side) => `${(frames / results[side].at(-1).seconds).toFixed(1)} frames/s, ${((results[side].at(-1).cpuSeconds * 1000) / frames).toFixed(1)} ms CPU a frame`
      log(
        `  pair ${pair + 1}: ${ours.label} ${describe('ours')}; ${theirs.label} ${describe('theirs')}; ${
          compareBytes ? (same ? 'byte-identical' : 'OUTPUTS DIFFER') : `PSNR ${psnr(outputs.ours, outputs.theirs)} dB, ${frameCount(outputs.theirs)} frames`
        }; load average ${loadAverage().toFixed(1)}`,
      )
      if (compareBytes && !same) results.differ = true
    }
    const seconds = (side) => median(results[side].map((run) => run.seconds))
    const cpu = (side) => median(results[side].map((run) => run.cpuSeconds))
    const summary = {frames, speed: seconds('theirs') / seconds('ours'), cpu: cpu('theirs') / cpu('ours'), identical: compareBytes ? !results.differ : undefined}
    log(
      `${ours.label} against ${theirs.label} (median of ${pairs} alternating pairs, ${frames} frames): ${summary.speed.toFixed(2)}x the speed (wall), ${summary.cpu.toFixed(2)}x less CPU per frame (${((cpu('ours') * 1000) / frames).toFixed(1)} against ${((cpu('theirs') * 1000) / frames).toFixed(1)} ms)${compareBytes ? `; outputs ${summary.identical ? 'byte-identical' : 'DIFFER'}` : ''}`,
    )
    return summary
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const {values, positionals} = parseArgs({allowPositionals: true, options: {build: {type: 'string'}, peer: {type: 'boolean'}, pairs: {type: 'string', default: '3'}}})
  const composition = positionals[0] ?? REFERENCE
  const ours = engineRunner(CHECKOUT, 'this checkout')
  if (values.peer) {
    if (!peerInstalled()) throw new Error(`the peer is not installed at ${PEER_DIR}: run /work/shared/corpus/compare.sh once, or set ENGINE_BENCH_PEER`)
    const work = mkdtempSync(join(tmpdir(), 'engine-peer-'))
    try {
      await versus({ours, theirs: peerRunner(work), pairs: Number(values.pairs), composition, compareBytes: false})
    } finally {
      rmSync(work, {recursive: true, force: true})
    }
  } else if (values.build) {
    await versus({ours, theirs: engineRunner(values.build, `the build in ${values.build}`), pairs: Number(values.pairs), composition})
  } else {
    throw new Error('usage: node bench/versus.mjs --build <checkout> | --peer [--pairs N] [composition]')
  }
}
