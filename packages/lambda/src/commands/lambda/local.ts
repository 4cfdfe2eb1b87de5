import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {stopOnSignal} from 'html-video-engine/internal/cli/stop-on-signal.js'
import {AWS_ENDPOINT_ENV, BUCKET_ENV, LOCAL_TOKEN_ENV, STATE_MACHINE_ENV} from '../../lib/lambda/aws-clients.js'
import {DEFAULT_LOCAL_BUCKET, DEFAULT_LOCAL_CONCURRENCY, startLocalStack} from '../../lib/lambda/local/local-stack.js'

export default class LambdaLocal extends BaseCommand {
  static override summary = 'Run the serverless stack on this machine (S3 + Step Functions on loopback), no AWS account needed'
  static override description =
    'Serves a real S3 API (s3rver) and a Step Functions API that executes the same state machine and runs the same handler in child processes, ' +
    'on one loopback endpoint. Export the printed lines, then use every other `engine lambda` command as against AWS. Runs until Ctrl-C. ' +
    `It answers only requests signed with the token it prints (${LOCAL_TOKEN_ENV}; a new one each start unless that variable is already set) ` +
    'and refuses requests from web pages.'
  static override examples = [
    '<%= config.bin %> lambda local --port 4566',
    '<%= config.bin %> lambda local --port 0 --json  # one line: {"ENGINE_LOCAL_TOKEN": …, "ENGINE_AWS_ENDPOINT": …}',
    '<%= config.bin %> lambda bundle && <%= config.bin %> lambda local --bundle engine-lambda.zip --concurrency 2',
  ]
  static override flags = {
    port: Flags.integer({description: 'port of the endpoint (0 picks a free one)', default: 4566, min: 0, max: 65535}),
    bucket: Flags.string({description: 'name of the render bucket', default: DEFAULT_LOCAL_BUCKET}),
    directory: Flags.string({description: 'where the bucket is stored (default: <tmp>/engine-lambda-local)'}),
    concurrency: Flags.integer({
      description: 'function invocations at once, like reserved concurrency: one more fails with Lambda.TooManyRequestsException and the workflow retries it',
      default: DEFAULT_LOCAL_CONCURRENCY,
      min: 1,
    }),
    bundle: Flags.string({description: 'run every invocation from this function bundle (`engine lambda bundle`) in a Lambda-like child: its own task root, /tmp, environment, browser and ffmpeg'}),
    memory: Flags.integer({description: 'function memory in MB the cost estimate assumes', default: 10240, min: 128, max: 10240}),
    json: Flags.boolean({description: 'print the variables to export as one JSON object ({ENGINE_LOCAL_TOKEN, ENGINE_AWS_ENDPOINT, ENGINE_BUCKET, ENGINE_SFN_ARN, directory}) instead of NAME=value lines'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaLocal)
    const stack = await startLocalStack({
      port: flags.port,
      bucketName: flags.bucket,
      directory: flags.directory,
      concurrency: flags.concurrency,
      memoryMb: flags.memory,
      bundle: flags.bundle,
      token: process.env[LOCAL_TOKEN_ENV] || undefined,
    })
    const stopped = stopOnSignal(() => stack.close())
    const exports = {[LOCAL_TOKEN_ENV]: stack.token, [AWS_ENDPOINT_ENV]: stack.endpoint, [BUCKET_ENV]: stack.bucketName, [STATE_MACHINE_ENV]: stack.stateMachineArn}
    if (flags.json) this.log(JSON.stringify({...exports, directory: stack.directory}))
    else for (const [name, value] of Object.entries(exports)) this.log(`${name}=${value}`)
    process.stderr.write(`local stack on ${stack.endpoint} (bucket stored in ${stack.directory}); export the lines above; Ctrl-C stops it\n`)
    // Ctrl-C exits 130 as an interrupted command does; SIGTERM is an ordered stop: 0.
    if ((await stopped) === 'SIGINT') process.exitCode = 130
  }
}
