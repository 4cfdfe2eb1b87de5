import {Args, Flags} from '@oclif/core'
import {IAMClient} from '@aws-sdk/client-iam'
import {GetCallerIdentityCommand, STSClient} from '@aws-sdk/client-sts'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {clientConfig} from '../../lib/lambda/aws-clients.js'
import {attachDeployerPolicy, userNameOf} from '../../lib/lambda/deploy/attach-deployer-policy.js'
import {deployerPolicy, renderCallerPolicy} from '../../lib/lambda/deploy/iam-policies.js'
import {assertPolicyFits, POLICY_PLACEMENT} from '../../lib/lambda/deploy/policy-quotas.js'
import {DEFAULT_STACK_NAME} from '../../lib/lambda/deploy/stack-resources.js'

export default class LambdaPolicies extends BaseCommand {
  static override summary = 'Print the least-privilege IAM policy for deploying (user) or for calling the stack (role); --create attaches the deployer policy'
  static override description =
    '`user`: what the person who runs `lambda deploy` and then renders needs (the stack\'s roles only, iam:PassRole scoped to them and their service, ' +
    'the bucket, the function, the state machine, its alarms). `role`: what an application that starts and follows renders needs. ' +
    "Both go in a customer-managed policy (IAM allows 6,144 characters; the deployer's is too long for a user's inline policies, 2,048 in all); " +
    'the `role` policy also fits a role\'s inline policies (10,240). `user --create` creates the managed policy `<name>-deployer` (or gives it a new default version) ' +
    'and attaches it to the IAM user whose credentials run it, or to --user: those credentials need iam:CreatePolicy, iam:CreatePolicyVersion, ' +
    'iam:ListPolicyVersions, iam:DeletePolicyVersion and iam:AttachUserPolicy.'
  static override examples = [
    '<%= config.bin %> lambda policies user --account-id 123456789012 --region eu-west-1 > engine-deployer.json',
    '<%= config.bin %> lambda policies user --region eu-west-1 --create',
    '<%= config.bin %> lambda policies role --account-id 123456789012 --region eu-west-1',
  ]
  static override args = {
    kind: Args.string({description: 'user (deploys and renders) or role (renders only)', required: true, options: ['user', 'role']}),
  }
  static override flags = {
    'account-id': Flags.string({description: 'your AWS account id (aws sts get-caller-identity); with --create, default: the account of the credentials in use'}),
    region: Flags.string({description: 'region of the stack (default: AWS_REGION, else us-east-1)'}),
    name: Flags.string({description: 'the stack name given to deploy --name', default: DEFAULT_STACK_NAME}),
    'bucket-name': Flags.string({description: 'the bucket given to deploy --bucket-name (default <name>-<account>-<region>)'}),
    'output-bucket': Flags.string({description: 'a bucket given to deploy --output-bucket: reading and removing the outputs there (user: also its lifecycle rules, which deploy merges the --delete-after rules into); repeat for more', multiple: true}),
    create: Flags.boolean({description: 'user only: create the customer-managed policy <name>-deployer (or update it) and attach it to the IAM user'}),
    user: Flags.string({description: 'with --create: the IAM user to attach it to (default: the user whose credentials run the command)', dependsOn: ['create']}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaPolicies)
    if (flags.create && args.kind !== 'user') {
      throw new EngineError('INVALID_FLAG', '--create: only the deployer policy (`lambda policies user --create`) is created; attach the `role` policy to your application\'s role', {field: 'create', kind: args.kind})
    }
    const caller = flags.create ? await new STSClient(clientConfig({region: flags.region})).send(new GetCallerIdentityCommand({})) : undefined
    const accountId = flags['account-id'] ?? caller?.Account
    if (accountId === undefined) {
      throw new EngineError('INVALID_FLAG', '--account-id: required (`aws sts get-caller-identity` prints yours), unless --create reads it from the credentials in use', {field: 'account-id'})
    }
    if (!/^\d{12}$/.test(accountId)) {
      throw new EngineError('INVALID_FLAG', `--account-id: "${accountId}" is not a 12-digit AWS account id; \`aws sts get-caller-identity\` prints yours`, {accountId})
    }
    const scope = {
      accountId,
      region: flags.region ?? process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION ?? 'us-east-1',
      name: flags.name,
      bucketName: flags['bucket-name'],
      outputBuckets: flags['output-bucket'],
    }
    const document = args.kind === 'user' ? deployerPolicy(scope) : renderCallerPolicy(scope)
    assertPolicyFits(document, args.kind === 'user' ? POLICY_PLACEMENT.deployer : POLICY_PLACEMENT.caller, `the ${args.kind} policy`)
    if (!caller) {
      this.log(JSON.stringify(document, null, 2))
      return
    }
    const attached = await attachDeployerPolicy({
      iam: new IAMClient(clientConfig({region: flags.region})),
      accountId,
      stackName: flags.name,
      document,
      userName: flags.user ?? userNameOf(caller.Arn ?? ''),
    })
    this.log(`${attached.outcome === 'created' ? 'Created' : 'Updated'} ${attached.policyArn} and attached it to the IAM user ${attached.userName}`)
  }
}
