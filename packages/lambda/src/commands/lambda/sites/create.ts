import {Args, Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {required, stackFlags} from '../../../cli/lambda-flags.js'
import {BUCKET_ENV} from '../../../lib/lambda/aws-clients.js'
import {deploySite} from '../../../lib/lambda/deploy-site.js'

export default class LambdaSitesCreate extends BaseCommand {
  static override summary = 'Upload a project once and print its content-addressed Site ID'
  static override examples = ['<%= config.bin %> lambda sites create ./my-project']
  static override args = {projectDir: Args.string({description: 'project directory (its index.html is the composition)', required: true})}
  static override flags = {
    ...stackFlags,
    json: Flags.boolean({description: 'print the site handle as JSON'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaSitesCreate)
    const site = await deploySite({
      projectDir: args.projectDir,
      bucketName: required(flags.bucket, 'bucket', BUCKET_ENV),
      endpoint: flags.endpoint,
      region: flags.region,
    })
    if (flags.json) {
      this.log(JSON.stringify(site))
      return
    }
    this.log(`Site ID: ${site.siteId}`)
    process.stderr.write(
      site.uploadedFiles === 0
        ? `already in s3://${site.bucketName}/sites/${site.siteId}/ (${site.totalFiles} files): nothing uploaded\n`
        : `uploaded ${site.uploadedFiles} files (${(site.uploadedBytes / 1024).toFixed(1)} KiB) to s3://${site.bucketName}/sites/${site.siteId}/\n`,
    )
  }
}
