import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {listFunctionVersions} from '../../../lib/lambda/deploy/function-versions.js'
import {DEFAULT_STACK_NAME} from '../../../lib/lambda/deploy/stack-resources.js'

export default class LambdaFunctionsLs extends BaseCommand {
  static override summary = "List the render function's published versions"
  static override description =
    'Each deploy publishes a version; the workflows invoke the one the `live` alias names, and a render keeps the version it started with. ' +
    'Newest first, with the live one marked and how many running executions still use each.'
  static override examples = ['<%= config.bin %> lambda functions ls', '<%= config.bin %> lambda functions ls --json']
  static override flags = {
    name: Flags.string({description: 'the stack name given to deploy --name', default: DEFAULT_STACK_NAME}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    json: Flags.boolean({description: 'machine-readable output'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaFunctionsLs)
    const versions = await listFunctionVersions({name: flags.name, region: flags.region, endpoint: flags.endpoint})
    if (flags.json) {
      this.log(JSON.stringify(versions))
      return
    }
    if (versions.length === 0) {
      this.log(`Function ${flags.name} has no published versions (\`engine lambda deploy\` publishes one each time)`)
      return
    }
    for (const version of versions) {
      const marks = [version.live && 'live', version.runningExecutions > 0 && `${version.runningExecutions} running`].filter(Boolean).join(', ')
      this.log(`${version.version.padStart(4)}  ${version.lastModified ?? ''}  ${version.memoryMb ?? '?'} MB ${version.arch ?? ''}${marks ? `  (${marks})` : ''}`)
    }
  }
}
