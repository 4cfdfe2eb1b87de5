import {spawn} from 'node:child_process'
import {randomBytes} from 'node:crypto'
import {existsSync, openSync, closeSync} from 'node:fs'
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {CopyObjectCommand, CreateBucketCommand} from '@aws-sdk/client-s3'
import {inject} from 'vitest'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {WAIT_POLL_ENV} from '../../packages/lambda/src/lib/lambda/wait-for-render.js'
import {STOP_POLL_ENV} from '../../packages/lambda/src/lib/lambda/runtime/chunk-stop-watch.js'
import {STACK_RECORD_KEY} from '../../packages/lambda/src/lib/lambda/stack-record.js'
import {REPO_ROOT} from './run-cli.js'
import {stackFiles as files} from './shared-stack-files.js'
import {until} from './until.js'

/** What a test file gets: the same shape as its own stack (test/lambda/support.ts). */
export interface SharedStack {
  /** ENGINE_LOCAL_TOKEN, ENGINE_AWS_ENDPOINT, ENGINE_BUCKET (this file's own), ENGINE_SFN_ARN. */
  env: Record<string, string>
  bucket: BucketObjects
  /** Nothing to stop: the stack outlives the file, and the run's teardown ends it. */
  stop(): Promise<void>
}

interface StackLines {
  ENGINE_LOCAL_TOKEN: string
  ENGINE_AWS_ENDPOINT: string
  ENGINE_BUCKET: string
  ENGINE_SFN_ARN: string
}

export const WATCHDOG = join(import.meta.dirname, 'watchdog.mjs')

/**
 * For the stacks the suite starts: a chunk looks for its render's stop marker every 250 ms instead
 * of every 2 s, so that each chunk a cancel or failure test stops quits its frames (CPU work) that
 * much sooner. What a chunk does once it sees the marker is the same.
 */
export const QUICK_STOP = {[STOP_POLL_ENV]: '250'}

/** A stack start waits this long at most, whatever the load (a loaded machine took over 20 s). */
const START_TIMEOUT_MS = 180_000

/**
 * One `engine lambda local` for the whole run, started by the first test file that asks for it
 * (a run without Lambda tests starts none), and one new bucket per test file on it, so that no
 * file sees another's sites, renders or records. Starting a stack costs seconds of CPU and its
 * function keeps warm environments between invocations: a dozen files each starting their own
 * spent both a dozen times. Files that need a stack started with other flags (a bundle, a
 * concurrency) or probe the stack process itself keep their own (startStackCli).
 */
export async function sharedStack(): Promise<SharedStack> {
  const directory = inject('sharedStackDir')
  const lines = await stackLines(directory)
  process.env.ENGINE_LOCAL_TOKEN = lines.ENGINE_LOCAL_TOKEN
  pollRendersQuickly()
  const s3 = createS3Client({endpoint: lines.ENGINE_AWS_ENDPOINT})
  const bucketName = `engine-test-${randomBytes(6).toString('hex')}`
  await s3.send(new CreateBucketCommand({Bucket: bucketName}))
  // Commands that plan load read the stack's record from the bucket they are given.
  await s3.send(new CopyObjectCommand({Bucket: bucketName, Key: STACK_RECORD_KEY, CopySource: `${lines.ENGINE_BUCKET}/${STACK_RECORD_KEY}`}))
  return {
    env: {...lines, ENGINE_BUCKET: bucketName},
    bucket: new BucketObjects(s3, bucketName),
    stop: async () => {},
  }
}

/**
 * `engine lambda render --wait` started by this test process (runCli passes its environment on)
 * polls every 500 ms instead of every 2 s: a waited render then ends within half a second of its
 * execution rather than up to 2 s later (the local stack answers a poll in milliseconds).
 */
export function pollRendersQuickly(): void {
  process.env[WAIT_POLL_ENV] = '500'
}

async function stackLines(directory: string): Promise<StackLines> {
  const paths = files(directory)
  const starter = await mkdir(paths.lock).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'EEXIST') return false
      throw error
    },
  )
  if (starter) await start(directory)
  const settled = await until(() => existsSync(paths.ready) || existsSync(paths.failed), START_TIMEOUT_MS, 100)
  if (existsSync(paths.failed)) throw new Error(`the shared local stack did not start: ${await readFile(paths.failed, 'utf8')}`)
  if (!settled) throw new Error(`the shared local stack did not start within ${START_TIMEOUT_MS / 1000} s`)
  return JSON.parse(await readFile(paths.ready, 'utf8')) as StackLines
}

/**
 * Starts the stack detached from this test file's process (which ends before the run does), its
 * output in files, and records its lines once it printed them. The token is chosen here, so that
 * only the address has to be read back.
 */
async function start(directory: string): Promise<void> {
  const paths = files(directory)
  const token = randomBytes(32).toString('hex')
  const out = openSync(paths.out, 'w')
  const err = openSync(paths.err, 'w')
  // A clean environment of its own: not whatever cache or override the first file had set.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('ENGINE_')))
  // Behind a watchdog of the run's vitest process: a run killed before its teardown ends the stack too.
  const child = spawn(
    process.execPath,
    [WATCHDOG, String(inject('testRunPid')), process.execPath, join(REPO_ROOT, 'bin', 'run.js'), 'lambda', 'local', '--port', '0', '--directory', join(directory, 'data')],
    // The render cache off, as for the suite's local renders: a file's second identical render
    // renders (the serverless cache keeps outputs in the file's bucket); its tests ask for it.
    {cwd: REPO_ROOT, detached: true, stdio: ['ignore', out, err], env: {...env, ...QUICK_STOP, ENGINE_LOCAL_TOKEN: token, ENGINE_CACHE_DIR: join(directory, 'cache'), ENGINE_RENDER_CACHE: 'off'}},
  )
  closeSync(out)
  closeSync(err)
  child.unref()
  await writeFile(paths.pid, String(child.pid))
  let exited = false
  child.once('exit', () => (exited = true))
  const printed = async () => {
    const text = await readFile(paths.out, 'utf8')
    return Object.fromEntries(text.split('\n').filter((line) => line.includes('=')).map((line) => line.split(/=(.*)/s, 2))) as Partial<StackLines>
  }
  const ready = await until(async () => {
    if (exited) return true
    const lines = await printed()
    return Boolean(lines.ENGINE_AWS_ENDPOINT && lines.ENGINE_BUCKET && lines.ENGINE_SFN_ARN)
  }, START_TIMEOUT_MS, 100)
  if (!ready || exited) {
    const reason = `${exited ? 'it exited' : `nothing within ${START_TIMEOUT_MS / 1000} s`}; it printed: ${await readFile(paths.out, 'utf8')}${await readFile(paths.err, 'utf8')}`
    await writeFile(paths.failed, reason)
    if (!exited) process.kill(-child.pid!, 'SIGTERM')
    return
  }
  const lines = {...(await printed()), ENGINE_LOCAL_TOKEN: token}
  await writeFile(`${paths.ready}.tmp`, JSON.stringify(lines))
  await rename(`${paths.ready}.tmp`, paths.ready)
}
