import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {removeSite} from '../../../lib/lambda/remove-site.js'

export default class LambdaSitesRm extends BaseCommand {
  static override summary = 'Delete an uploaded site'
  static override description = 'Renders still running from the site fail; finished renders, their outputs and records are kept.'
  static override examples = ['<%= config.bin %> lambda sites rm 3f9c0c2d5b1e4a7f9d2c1b0a']
  static override args = {siteId: Args.string({description: 'the Site ID, as `sites create` printed it and `sites ls` lists it', required: true})}
  static override flags = {
    ...stackFlags,
    json: Flags.boolean({description: 'machine-readable output'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaSitesRm)
    const removed = await removeSite({siteId: args.siteId, bucketName: required(flags.bucket, 'bucket', BUCKET_ENV), endpoint: flags.endpoint, region: flags.region})
    this.log(flags.json ? JSON.stringify(removed) : `Removed site ${removed.siteId} (${removed.deletedObjects} objects) from s3://${removed.bucketName}/`)
  }
}
