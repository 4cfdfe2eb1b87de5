import {spawn, type ChildProcess} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createS3Client} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {BucketObjects} from '../../packages/lambda/src/lib/lambda/s3-objects.js'
import {inject} from 'vitest'
import {REPO_ROOT} from '../support/run-cli.js'
import {pollRendersQuickly, QUICK_STOP, WATCHDOG} from '../support/shared-stack.js'

export const LAMBDA_FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'lambda')

export interface RunningStack {
  /** ENGINE_LOCAL_TOKEN, ENGINE_AWS_ENDPOINT, ENGINE_BUCKET, ENGINE_SFN_ARN as printed. */
  env: Record<string, string>
  bucket: BucketObjects
  stop(): Promise<void>
}

/**
 * `engine lambda local --port 0` in the background, as a user runs it; resolves once it printed its
 * lines. Like a user exporting them, this test process then signs its own SDK calls with the token.
 */
export async function startStackCli(extraArgs: readonly string[] = [], startTimeoutMs = 180_000, directory?: string, childEnv?: NodeJS.ProcessEnv): Promise<RunningStack> {
  directory ??= await mkdtemp(join(tmpdir(), 'engine-lambda-test-'))
  // Behind a watchdog: a test process or run killed before its afterAll ends the stack too.
  const watched = `${process.pid},${inject('testRunPid')}`
  const command = [process.execPath, join(REPO_ROOT, 'bin', 'run.js'), 'lambda', 'local', '--port', '0', '--directory', directory, ...extraArgs]
  const child: ChildProcess = spawn(process.execPath, [WATCHDOG, watched, ...command], {
    cwd: REPO_ROOT,
    env: {...process.env, ...QUICK_STOP, ...childEnv},
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const env = await new Promise<Record<string, string>>((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => {
      // Do not leave the stack running behind a failed test file.
      child.kill('SIGTERM')
      reject(new Error(`lambda local printed only: ${text}`))
    }, startTimeoutMs)
    child.once('exit', (code) => reject(new Error(`lambda local exited with ${code}: ${text}`)))
    child.stdout!.on('data', (chunk) => {
      text += chunk
      const lines = Object.fromEntries(text.split('\n').filter((line) => line.includes('=')).map((line) => line.split(/=(.*)/s, 2)))
      if (lines.ENGINE_LOCAL_TOKEN && lines.ENGINE_AWS_ENDPOINT && lines.ENGINE_BUCKET && lines.ENGINE_SFN_ARN) {
        clearTimeout(timer)
        resolve(lines)
      }
    })
  })
  process.env.ENGINE_LOCAL_TOKEN = env.ENGINE_LOCAL_TOKEN
  pollRendersQuickly()
  return {
    env,
    bucket: new BucketObjects(createS3Client({endpoint: env.ENGINE_AWS_ENDPOINT}), env.ENGINE_BUCKET),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
      await rm(directory, {recursive: true, force: true})
    },
  }
}
