// What a minute of video costs on the serverless stack, from a measured chunk profile: renders the
// reference composition (bench/compositions/chart.html, 1920x1080, 30 fps, 12 s) through the local
// stack at the default function memory (10,240 MB) and default chunk plan, reads every
// invocation's own record (renders/<id>/invocations/: action, run time, memory) and derives
// GB-seconds per minute of video and its price with the formula `lambda progress` uses.
//
// The local stack runs one invocation at a time here (--concurrency 1). Run times on a loaded
// machine say more about the load than about the work, so the script also measures the CPU time
// the invocations spent (the function's child processes and the browsers and encoders they ran:
// cutime + cstime of this process once the stack has closed; the stack's own S3 and Step
// Functions run in this process and are not counted). A 10,240 MB function has 6 vCPUs: the
// "from CPU" line bills CPU time / 6 as run time, i.e. the work spread evenly over the vCPUs (a
// lower bound: cold starts and waits do not spread); "measured here" bills the run times as
// recorded (an upper bound under load). A Lambda vCPU is not this machine's core either.
//
// Usage: npm run build && node_modules/.bin/node bench/lambda-cost.mjs [--seconds 12]   (Node 22)
import {copyFile, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {availableParallelism, loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

const root = new URL('..', import.meta.url)
const lambdaDist = new URL('packages/lambda/dist/src/lib/lambda/', root)
const load = (path) => import(new URL(path, lambdaDist).href)
// The serverless package imports the engine as `html-video-engine/…`: resolved to this checkout, as the CLI does.
const {registerHostPackage} = await import(new URL('dist/src/lib/sandbox/host-package.js', root).href)
registerHostPackage()

const {values} = parseArgs({options: {seconds: {type: 'string', default: '12'}}})
const MEMORY_MB = 10240
const LAMBDA_VCPUS = 6
const FPS = 30
const minuteFramesOf = (fps) => 60 * fps

const [{startLocalStack}, sdk, {createS3Client}, {BucketObjects}, {invocationsPrefix}, {parseInvocationKey}] = await Promise.all(
  ['local/local-stack.js', 'index.js', 'aws-clients.js', 's3-objects.js', 'storage-keys.js', 'runtime/invocation-records.js'].map(load),
)

const work = await mkdtemp(join(tmpdir(), 'engine-bench-lambda-cost-'))
const project = join(work, 'project')
await mkdir(project)
// The site is the project's own files: GSAP goes beside the page.
const chart = (await readFile(new URL('bench/compositions/chart.html', root), 'utf8'))
  .replace('../../node_modules/gsap/dist/gsap.min.js', 'gsap.min.js')
  .replace(/data-duration="\d+(\.\d+)?"/, `data-duration="${values.seconds}"`)
await writeFile(join(project, 'index.html'), chart)
await copyFile(new URL('node_modules/gsap/dist/gsap.min.js', root), join(project, 'gsap.min.js'))

/** CPU seconds of this process's waited-for children (and theirs): /proc/self/stat cutime + cstime. */
async function childrenCpuSeconds() {
  const fields = (await readFile('/proc/self/stat', 'utf8')).split(') ')[1].split(' ')
  return (Number(fields[13]) + Number(fields[14])) / 100
}

const cpuBefore = await childrenCpuSeconds()
const stack = await startLocalStack({port: 0, directory: join(work, 's3'), concurrency: 1, memoryMb: MEMORY_MB})
process.env.ENGINE_LOCAL_TOKEN = stack.token
let closed = false
try {
  const aws = {endpoint: stack.endpoint}
  const loadBefore = loadavg()[0]
  const site = await sdk.deploySite({projectDir: project, bucketName: stack.bucketName, ...aws})
  const started = Date.now()
  const handle = await sdk.renderToLambda({siteHandle: site, bucketName: stack.bucketName, stateMachineArn: stack.stateMachineArn, config: {}, ...aws})
  const done = await sdk.waitForRender({render: handle.executionArn, ...aws, pollMs: 1000, signal: AbortSignal.timeout(1_800_000)})
  if (done.status !== 'SUCCEEDED') throw new Error(`the render ended ${done.status}: ${JSON.stringify(done.error)}`)
  const wallSeconds = (Date.now() - started) / 1000

  const bucket = new BucketObjects(createS3Client(aws), stack.bucketName)
  const records = (await bucket.listKeys(invocationsPrefix(handle.renderId))).map(parseInvocationKey).filter(Boolean)
  const seconds = (action) => records.filter((record) => record.action === action).reduce((sum, record) => sum + record.durationMs / 1000, 0)
  const frames = done.frames.total
  const plan = seconds('plan')
  const chunks = seconds('renderChunk')
  const assemble = seconds('assemble')
  const chunkCount = records.filter((record) => record.action === 'renderChunk').length
  const minuteFrames = minuteFramesOf(FPS)
  // Per minute of video: the plan once, chunk and assembly time in proportion to the frames.
  const perMinute = (factor) => {
    const runSeconds = plan * factor + ((chunks + assemble) * factor * minuteFrames) / frames
    return {runSeconds, gbSeconds: runSeconds * (MEMORY_MB / 1024)}
  }
  await stack.close()
  closed = true
  // The environments exit on close; their CPU is counted once they are reaped.
  await new Promise((resolve) => setTimeout(resolve, 2000))
  const cpuSeconds = (await childrenCpuSeconds()) - cpuBefore
  const measured = perMinute(1)
  const fromCpu = {gbSeconds: ((cpuSeconds / LAMBDA_VCPUS) * (minuteFramesOf(FPS) / frames)) * (MEMORY_MB / 1024)}
  // Invocations of a minute at the default plan: the plan, a chunk per 720 frames (one 4 s segment per vCPU), the assembly.
  const minuteChunks = Math.ceil(minuteFrames / 720)
  const price = (gbSeconds) =>
    sdk.estimateCost([{durationMs: gbSeconds * 1000 * (1024 / MEMORY_MB), memoryMb: MEMORY_MB}, ...Array.from({length: minuteChunks + 1}, () => ({durationMs: 0, memoryMb: MEMORY_MB}))], minuteChunks + 5)
  const report = {
    composition: `chart.html 1920x1080 ${FPS} fps, ${values.seconds} s (${frames} frames)`,
    machine: {cores: availableParallelism(), loadAverageBefore: Number(loadBefore.toFixed(1)), loadAverageAfter: Number(loadavg()[0].toFixed(1))},
    memoryMb: MEMORY_MB,
    invocations: records.map(({action, chunk, outcome, durationMs}) => ({action, ...(chunk !== undefined && {chunk}), outcome, seconds: Number((durationMs / 1000).toFixed(2))})),
    cpuSeconds: Number(cpuSeconds.toFixed(1)),
    cpuSecondsPerFrame: Number((cpuSeconds / frames).toFixed(4)),
    measuredSeconds: {plan: Number(plan.toFixed(2)), chunks: Number(chunks.toFixed(2)), chunkCount, assemble: Number(assemble.toFixed(2)), chunkSecondsPerFrame: Number((chunks / frames).toFixed(4)), renderWall: Number(wallSeconds.toFixed(1))},
    perMinuteOfVideo: {
      measuredHere: {gbSeconds: Math.round(measured.gbSeconds), usd: price(measured.gbSeconds).usd},
      fromCpuAt6Vcpus: {gbSeconds: Math.round(fromCpu.gbSeconds), usd: price(fromCpu.gbSeconds).usd},
      invocations: minuteChunks + 2,
    },
  }
  console.log(JSON.stringify(report, null, 2))
} finally {
  if (!closed) await stack.close()
  await rm(work, {recursive: true, force: true})
}
