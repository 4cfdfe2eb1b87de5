import {createInterface} from 'node:readline/promises'
import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {destroyStack} from '../../lib/lambda/deploy/destroy-stack.js'
import {DEFAULT_STACK_NAME} from '../../lib/lambda/deploy/stack-resources.js'

export default class LambdaDestroy extends BaseCommand {
  static override summary = 'Remove what `lambda deploy` created; the bucket stays unless --delete-bucket'
  static override description =
    'Deletes, in the reverse of deploy\'s order: the alarms, the execution-end rule, both workflows, the log group, the live alias and the function with every version, ' +
    'the two roles and their policies, and the code and stack record deploy put in the bucket. Running it again passes over what is already gone. ' +
    'The bucket, with the renders, sites and batches in it, stays unless --delete-bucket, which lists what it holds and asks first (--yes in scripts). ' +
    'Needs the policy `lambda policies user` prints.'
  static override examples = ['<%= config.bin %> lambda destroy --region eu-west-1', '<%= config.bin %> lambda destroy --region eu-west-1 --delete-bucket --yes']
  static override flags = {
    name: Flags.string({description: 'the stack name given to deploy --name', default: DEFAULT_STACK_NAME}),
    'bucket-name': Flags.string({description: 'the bucket given to deploy --bucket-name (default <name>-<account>-<region>)'}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    'delete-bucket': Flags.boolean({description: 'also delete every object in the bucket, and the bucket'}),
    yes: Flags.boolean({description: 'with --delete-bucket: do not ask'}),
    json: Flags.boolean({description: 'machine-readable output'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaDestroy)
    const destroyed = await destroyStack({
      name: flags.name,
      bucketName: flags['bucket-name'],
      region: flags.region,
      endpoint: flags.endpoint,
      deleteBucket: flags['delete-bucket'],
      onStep: flags.json ? undefined : (what) => process.stderr.write(`deleting ${what}\n`),
      confirmBucket: async ({bucketName, objects, byFolder}) => {
        const listing = Object.entries(byFolder).map(([folder, count]) => `${folder} ${count}`).join(', ')
        process.stderr.write(`--delete-bucket: ${bucketName} holds ${objects} object(s)${listing ? ` (${listing})` : ''}, which will be deleted with it\n`)
        if (flags.yes) return true
        if (!process.stdin.isTTY) {
          throw new EngineError('INVALID_FLAG', `--delete-bucket: deleting ${bucketName} and its ${objects} object(s) needs a yes: run it in a terminal, or add --yes`, {field: 'delete-bucket', bucketName})
        }
        const prompt = createInterface({input: process.stdin, output: process.stderr})
        try {
          return (await prompt.question(`Delete ${bucketName} and everything in it? [y/N] `)).trim().toLowerCase().startsWith('y')
        } finally {
          prompt.close()
        }
      },
    })
    if (flags.json) {
      this.log(JSON.stringify(destroyed))
      return
    }
    this.log(destroyed.deleted.length > 0 ? `Deleted ${destroyed.deleted.join('; ')}` : 'Nothing of the stack was left to delete')
    this.log(
      destroyed.bucketDeleted
        ? `Deleted bucket ${destroyed.bucketName} and its ${destroyed.objectsDeleted} object(s)`
        : `Kept bucket ${destroyed.bucketName} (${destroyed.objectsDeleted} object(s) of the deploy removed); --delete-bucket removes it too`,
    )
  }
}
