import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {BUCKET_ENV, STATE_MACHINE_ENV} from '../../lib/lambda/aws-clients.js'
import {deployStack} from '../../lib/lambda/deploy/deploy-stack.js'
import {smokeTest} from '../../lib/lambda/smoke-test.js'
import {DEFAULT_MEMORY_MB, DEFAULT_STACK_NAME, MAX_MEMORY_MB, MIN_MEMORY_MB, stackResources} from '../../lib/lambda/deploy/stack-resources.js'

export default class LambdaDeploy extends BaseCommand {
  static override summary = 'Create or update the serverless stack (once per account and region)'
  static override description =
    'Creates (or updates in place) the render bucket with a lifecycle rule for render scratch, least-privilege roles, the render function, ' +
    'the Step Functions standard workflow and CloudWatch alarms, then prints the values callers export. --dry-run prints what would be created.'
  static override examples = [
    '<%= config.bin %> lambda deploy --concurrency=64 --memory 10240',
    '<%= config.bin %> lambda deploy --code engine-lambda.zip',
    '<%= config.bin %> lambda deploy --dry-run --region eu-west-1',
    '<%= config.bin %> lambda deploy --region eu-west-1 --smoke-test',
  ]
  static override flags = {
    concurrency: Flags.integer({description: 'reserved concurrency of the render function (default: the account\'s shared pool)', min: 1}),
    memory: Flags.integer({description: 'function memory in MB', default: DEFAULT_MEMORY_MB, min: MIN_MEMORY_MB, max: MAX_MEMORY_MB}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    code: Flags.string({description: 'function bundle zip from `engine lambda bundle` (default: build one now)'}),
    name: Flags.string({description: 'name of the function, state machine and prefix of the other resources', default: DEFAULT_STACK_NAME}),
    'bucket-name': Flags.string({description: 'render bucket name (default <name>-<account>-<region>)'}),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    'dry-run': Flags.boolean({description: 'print the resources as JSON and create nothing'}),
    'smoke-test': Flags.boolean({description: 'end with a 1 s 320x180 render through the deployed stack (fails the command if it fails)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaDeploy)
    const settings = {name: flags.name, bucketName: flags['bucket-name'], memoryMb: flags.memory, reservedConcurrency: flags.concurrency}
    if (flags['dry-run']) {
      const region = flags.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1'
      this.log(JSON.stringify(stackResources({...settings, region, accountId: '<account-id>'}), null, 2))
      return
    }
    const resources = await deployStack({
      ...settings,
      region: flags.region,
      endpoint: flags.endpoint,
      codeZip: flags.code,
      onStep: (message) => process.stderr.write(`deploying ${message}\n`),
      onWarning: (warning) => process.stderr.write(`warning [${warning.code}]: ${warning.message}\n`),
    })
    const {RenderBucketName, RenderStateMachineArn} = resources.outputs
    this.log(`RenderBucketName: ${RenderBucketName}`)
    this.log(`RenderStateMachineArn: ${RenderStateMachineArn}`)
    this.log(`${BUCKET_ENV}=${RenderBucketName}`)
    this.log(`${STATE_MACHINE_ENV}=${RenderStateMachineArn}`)
    if (!flags['smoke-test']) return
    process.stderr.write('smoke test: rendering 1 s at 320x180 through the stack\n')
    let last = ''
    const smoke = await smokeTest({
      bucketName: RenderBucketName,
      stateMachineArn: RenderStateMachineArn,
      region: flags.region,
      endpoint: flags.endpoint,
      onProgress: (progress) => {
        const line = `smoke test: ${progress.stage}`
        if (line !== last) process.stderr.write(line + '\n')
        last = line
      },
    })
    this.log(`Smoke test: render ${smoke.renderId} succeeded in ${smoke.seconds.toFixed(1)} s (${smoke.progress.output.https?.url ?? smoke.progress.output.url}, estimated $${smoke.progress.cost.usd.toFixed(6)})`)
  }
}
