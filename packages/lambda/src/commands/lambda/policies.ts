import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {deployerPolicy, renderCallerPolicy} from '../../lib/lambda/deploy/iam-policies.js'
import {DEFAULT_STACK_NAME} from '../../lib/lambda/deploy/stack-resources.js'

export default class LambdaPolicies extends BaseCommand {
  static override summary = 'Print the least-privilege IAM policy for deploying (user) or for calling the stack (role)'
  static override description =
    '`user`: what the person who runs `lambda deploy` and then renders needs (the stack\'s roles only, iam:PassRole scoped to them and their service, ' +
    'the bucket, the function, the state machine, its alarms). `role`: what an application that starts and follows renders needs. ' +
    'Attach the JSON as an inline or customer-managed policy.'
  static override examples = [
    '<%= config.bin %> lambda policies user --account-id 123456789012 --region eu-west-1 > engine-deployer.json',
    '<%= config.bin %> lambda policies role --account-id 123456789012 --region eu-west-1',
  ]
  static override args = {
    kind: Args.string({description: 'user (deploys and renders) or role (renders only)', required: true, options: ['user', 'role']}),
  }
  static override flags = {
    'account-id': Flags.string({description: 'your AWS account id (aws sts get-caller-identity)', required: true}),
    region: Flags.string({description: 'region of the stack (default: AWS_REGION, else us-east-1)'}),
    name: Flags.string({description: 'the stack name given to deploy --name', default: DEFAULT_STACK_NAME}),
    'bucket-name': Flags.string({description: 'the bucket given to deploy --bucket-name (default <name>-<account>-<region>)'}),
    'output-bucket': Flags.string({description: 'a bucket given to deploy --output-bucket: reading and removing the outputs there (user: also its lifecycle rules, which deploy merges the --delete-after rules into); repeat for more', multiple: true}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaPolicies)
    if (!/^\d{12}$/.test(flags['account-id'])) {
      throw new EngineError('INVALID_FLAG', `--account-id: "${flags['account-id']}" is not a 12-digit AWS account id; \`aws sts get-caller-identity\` prints yours`, {
        accountId: flags['account-id'],
      })
    }
    const scope = {
      accountId: flags['account-id'],
      region: flags.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      name: flags.name,
      bucketName: flags['bucket-name'],
      outputBuckets: flags['output-bucket'],
    }
    this.log(JSON.stringify(args.kind === 'user' ? deployerPolicy(scope) : renderCallerPolicy(scope), null, 2))
  }
}
