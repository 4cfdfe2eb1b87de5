import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {deployReport, deployText, smokeTestText} from '../../cli/lambda-deploy-text.js'
import {deployStack} from '../../lib/lambda/deploy/deploy-stack.js'
import {smokeTest, type SmokeTestResult} from '../../lib/lambda/smoke-test.js'
import {
  ARCHITECTURES,
  DEFAULT_LOG_RETENTION_DAYS,
  DEFAULT_MEMORY_MB,
  DEFAULT_STACK_NAME,
  FALLBACK_MEMORY_MB,
  MAX_MEMORY_MB,
  MIN_MEMORY_MB,
  stackResources,
  type Architecture,
} from '../../lib/lambda/deploy/stack-resources.js'

export default class LambdaDeploy extends BaseCommand {
  static override summary = 'Create or update the serverless stack (once per account and region)'
  static override description =
    'Reads the account first (its concurrency, the function as it is), checks every setting and the code, then creates (or updates in place) ' +
    'least-privilege roles, the render bucket with a lifecycle rule for render scratch, the render function (publishing a version and moving its `live` alias), ' +
    'its log group with a retention, the render and batch workflows (which invoke that version: renders already running finish on theirs) and CloudWatch alarms, ' +
    'then prints the old and new versions and the values callers export. On a new account (10 concurrent executions, 3,008 MB) it reserves nothing and uses the memory cap, ' +
    'saying so. A failed deploy says what it created or changed; running it again finishes. --dry-run prints what would be created.'
  static override examples = [
    '<%= config.bin %> lambda deploy --concurrency=64 --memory 10240',
    '<%= config.bin %> lambda deploy --code engine-lambda.zip',
    '<%= config.bin %> lambda deploy --dry-run --region eu-west-1',
    '<%= config.bin %> lambda deploy --region eu-west-1 --smoke-test',
  ]
  static override flags = {
    concurrency: Flags.integer({
      description: "reserved concurrency of the render function, if the account keeps 100 unreserved with it (default: the account's shared pool)",
      min: 1,
    }),
    memory: Flags.integer({
      description: `function memory in MB (default ${DEFAULT_MEMORY_MB}, or the account's cap when lower, e.g. ${FALLBACK_MEMORY_MB} on a new account); a value over the cap fails`,
      min: MIN_MEMORY_MB,
      max: MAX_MEMORY_MB,
    }),
    arch: Flags.string({description: 'function architecture: x86_64 (default) or arm64 (about 20 % cheaper per GB-second; needs a bundle built with --arch arm64)', options: [...ARCHITECTURES]}),
    'log-retention': Flags.integer({description: `days the function's CloudWatch logs are kept (default ${DEFAULT_LOG_RETENTION_DAYS})`}),
    'alarm-topic': Flags.string({description: 'SNS topic ARN the alarms notify when they fire and clear (default: none, the alarms only show in CloudWatch)'}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    code: Flags.string({description: 'function bundle zip from `engine lambda bundle` (default: build one now)'}),
    name: Flags.string({description: 'name of the function, state machine and prefix of the other resources', default: DEFAULT_STACK_NAME}),
    'bucket-name': Flags.string({description: 'render bucket name (default <name>-<account>-<region>)'}),
    'output-bucket': Flags.string({
      description: 'another bucket renders may write their output to (`lambda render --output-bucket`): the function may write and delete objects there; repeat for more',
      multiple: true,
    }),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    'dry-run': Flags.boolean({description: 'print the resources as JSON and create nothing'}),
    'smoke-test': Flags.boolean({description: 'end with a 1 s 320x180 render through the deployed stack (fails the command if it fails)'}),
    json: Flags.boolean({description: 'print the deployed stack as one JSON object (version, bucket, state machines, the variables to export, the smoke test); progress stays on stderr'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaDeploy)
    const settings = {
      name: flags.name,
      bucketName: flags['bucket-name'],
      memoryMb: flags.memory,
      reservedConcurrency: flags.concurrency,
      arch: flags.arch as Architecture | undefined,
      logRetentionDays: flags['log-retention'],
      alarmTopicArn: flags['alarm-topic'],
      outputBuckets: flags['output-bucket'],
    }
    if (flags['dry-run']) {
      const region = flags.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1'
      this.log(JSON.stringify(stackResources({...settings, region, accountId: '<account-id>', functionVersion: '<published-version>'}), null, 2))
      return
    }
    const deployed = await deployStack({
      ...settings,
      region: flags.region,
      endpoint: flags.endpoint,
      codeZip: flags.code,
      onStep: (message) => process.stderr.write(`deploying ${message}\n`),
      onWarning: (warning) => process.stderr.write(`warning [${warning.code}]: ${warning.message}\n`),
    })
    const {RenderBucketName, RenderStateMachineArn} = deployed.resources.outputs
    // The stack is printed before the smoke test: a failing smoke test still leaves what to export.
    if (!flags.json) for (const line of deployText(deployReport(deployed))) this.log(line)
    let smoke: SmokeTestResult | undefined
    if (flags['smoke-test']) {
      process.stderr.write('smoke test: rendering 1 s at 320x180 through the stack\n')
      let last = ''
      smoke = await smokeTest({
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
    }
    const report = deployReport(deployed, smoke)
    if (flags.json) this.log(JSON.stringify(report))
    else if (report.smokeTest) this.log(smokeTestText(report.smokeTest))
  }
}
