import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {siteLines} from '../../../cli/lambda-list-text.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {listSites} from '../../../lib/lambda/list-sites.js'

export default class LambdaSitesLs extends BaseCommand {
  static override summary = 'List the uploaded sites: Site ID, files, size, upload time'
  static override description = 'Newest first. An upload that was cut short shows as incomplete: renders cannot use it, and `sites create` of the same project completes it.'
  static override examples = ['<%= config.bin %> lambda sites ls', '<%= config.bin %> lambda sites ls --json']
  static override flags = {
    ...stackFlags,
    json: Flags.boolean({description: 'print the sites as a JSON array'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaSitesLs)
    const sites = await listSites({bucketName: required(flags.bucket, 'bucket', BUCKET_ENV), endpoint: flags.endpoint, region: flags.region})
    this.log(flags.json ? JSON.stringify(sites) : siteLines(sites).join('\n'))
  }
}
