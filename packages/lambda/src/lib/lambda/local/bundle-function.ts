import {fork, type ChildProcess} from 'node:child_process'
import {randomUUID} from 'node:crypto'
import {mkdir, readFile, rm} from 'node:fs/promises'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {BUNDLE_LAYOUT} from '../bundle/bundle-layout.js'
import {extractZip} from '../bundle/read-zip.js'
import {AWS_ENDPOINT_ENV, LOCAL_TOKEN_ENV} from '../aws-clients.js'
import {answerOf} from './child-answer.js'

const RUNTIME_CHILD = fileURLToPath(new URL('./bundle-runtime-child.js', import.meta.url))

export interface BundleFunctionOptions {
  /** The zip `engine lambda bundle` wrote. */
  bundle: string
  /** Where the task root and the sandboxes' /tmp directories go; emptied first. */
  directory: string
  functionName: string
  region: string
  memoryMb: number
  /** The stack's endpoint, for the handler's S3 client (known only once the server listens). */
  endpoint: () => string
  /** The stack's token, which the handler's S3 client signs with. */
  token: string
}

/**
 * A function running from its bundle as on Lambda: the zip unpacked once into a task root, each
 * invocation a fresh Node process (a cold start) in an execution environment with its own /tmp,
 * Lambda's environment variables and a PATH that holds none of the host's programs, so only the
 * bundle's Chromium, ffmpeg and fonts can do the work. A finished environment is reused by the next
 * invocation with its /tmp, as Lambda reuses warm ones (the unpacked browser stays there).
 */
export class BundleFunction {
  private readonly idle: string[] = []
  private environments = 0

  private constructor(
    private readonly options: BundleFunctionOptions,
    readonly taskRoot: string,
    private readonly emptyBin: string,
  ) {}

  static async prepare(options: BundleFunctionOptions): Promise<BundleFunction> {
    await rm(options.directory, {recursive: true, force: true})
    const taskRoot = join(options.directory, 'task')
    const emptyBin = join(options.directory, 'bin')
    await Promise.all([mkdir(taskRoot, {recursive: true}), mkdir(emptyBin, {recursive: true})])
    await extractZip(options.bundle, taskRoot)
    return new BundleFunction(options, taskRoot, emptyBin)
  }

  /** The formats the bundle's manifest says it renders (none recorded by an older bundle: undefined). */
  async formats(): Promise<string[] | undefined> {
    const manifest = await readFile(join(this.taskRoot, BUNDLE_LAYOUT.manifest), 'utf8').catch(() => undefined)
    return manifest === undefined ? undefined : (JSON.parse(manifest) as {formats?: string[]}).formats
  }

  async invoke(event: unknown, onChild?: (child: ChildProcess) => void): Promise<unknown> {
    const environment = this.idle.pop() ?? (await this.newEnvironment())
    try {
      return await this.run(environment, event, onChild)
    } finally {
      this.idle.push(environment)
    }
  }

  private async newEnvironment(): Promise<string> {
    const tmp = join(this.options.directory, 'environments', String(++this.environments), 'tmp')
    await mkdir(tmp, {recursive: true})
    return tmp
  }

  private run(tmp: string, event: unknown, onChild?: (child: ChildProcess) => void): Promise<unknown> {
    const requestId = randomUUID()
    const logStreamName = `${new Date().toISOString().slice(0, 10).replaceAll('-', '/')}/[$LATEST]${requestId.replaceAll('-', '')}`
    const env = this.environmentVariables(tmp, logStreamName)
    const child = fork(RUNTIME_CHILD, [], {cwd: this.taskRoot, env, stdio: ['ignore', 'ignore', 'inherit', 'ipc']})
    onChild?.(child)
    const context = {awsRequestId: requestId, functionName: this.options.functionName, memoryLimitInMB: String(this.options.memoryMb), logStreamName}
    return answerOf(child, {event, context}, (code, signal) => `RequestId: ${requestId} Error: Runtime exited ${signal ? `with signal: ${signal}` : `with error: exit status ${code}`}`)
  }

  /** What Lambda's Node.js 22 runtime sets, with the task root and /tmp of this machine. */
  private environmentVariables(tmp: string, logStreamName: string): NodeJS.ProcessEnv {
    const {functionName, region, memoryMb} = this.options
    return {
      AWS_LAMBDA_FUNCTION_NAME: functionName,
      AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
      AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(memoryMb),
      AWS_LAMBDA_LOG_GROUP_NAME: `/aws/lambda/${functionName}`,
      AWS_LAMBDA_LOG_STREAM_NAME: logStreamName,
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
      AWS_REGION: region,
      AWS_DEFAULT_REGION: region,
      LAMBDA_TASK_ROOT: this.taskRoot,
      LAMBDA_RUNTIME_DIR: this.taskRoot,
      LANG: 'en_US.UTF-8',
      TZ: ':UTC',
      PATH: this.emptyBin,
      LD_LIBRARY_PATH: `${this.taskRoot}:${join(this.taskRoot, 'lib')}`,
      TMPDIR: tmp,
      NODE_OPTIONS: '',
      [AWS_ENDPOINT_ENV]: this.options.endpoint(),
      [LOCAL_TOKEN_ENV]: this.options.token,
    }
  }
}
