import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {removeFunctionVersions} from '../../../lib/lambda/deploy/function-versions.js'
import {DEFAULT_STACK_NAME} from '../../../lib/lambda/deploy/stack-resources.js'

export default class LambdaFunctionsRm extends BaseCommand {
  static override summary = "Delete old versions of the render function"
  static override description =
    'Deletes the versions named, or with --keep all but the newest N. The live version and versions that running executions still invoke are kept, and said so.'
  static override strict = false
  static override examples = ['<%= config.bin %> lambda functions rm 3 4', '<%= config.bin %> lambda functions rm --keep 3']
  static override args = {versions: Args.string({description: 'version numbers, as `lambda functions ls` lists them'})}
  static override flags = {
    keep: Flags.integer({description: 'keep the newest N versions, delete the older ones'}),
    name: Flags.string({description: 'the stack name given to deploy --name', default: DEFAULT_STACK_NAME}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    json: Flags.boolean({description: 'machine-readable output'}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(LambdaFunctionsRm)
    const result = await removeFunctionVersions({name: flags.name, region: flags.region, endpoint: flags.endpoint, versions: argv.length > 0 ? (argv as string[]) : undefined, keep: flags.keep})
    if (flags.json) {
      this.log(JSON.stringify(result))
      return
    }
    this.log(result.removed.length > 0 ? `Removed version(s) ${result.removed.join(', ')} of ${flags.name}` : `Removed no version of ${flags.name}`)
    for (const kept of result.kept) this.log(`Kept version ${kept.version}: ${kept.reason}`)
  }
}
