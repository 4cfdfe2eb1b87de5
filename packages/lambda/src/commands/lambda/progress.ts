import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {outputUrlFlags, outputUrlFromFlags, renderArg, renderLookupFlags} from '../../cli/lambda-flags.js'
import {progressLines} from '../../cli/lambda-progress-text.js'
import {getRenderProgress} from '../../lib/lambda/render-progress.js'

export default class LambdaProgress extends BaseCommand {
  static override summary = 'Report the progress of a serverless render'
  static override description =
    'Status, chunks and frames done, output location and (once stored) an HTTPS URL for it, error, elapsed time and an estimated cost (Lambda GB-seconds and state transitions; S3 not included).'
  static override examples = [
    '<%= config.bin %> lambda progress arn:aws:states:eu-west-1:123456789012:execution:engine-render:abc',
    '<%= config.bin %> lambda progress lx2k9a1b-0f3c2a9d1e --json',
    '<%= config.bin %> lambda progress lx2k9a1b-0f3c2a9d1e --url-expires 86400',
  ]
  static override args = renderArg
  static override flags = {
    ...renderLookupFlags,
    ...outputUrlFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaProgress)
    const progress = await getRenderProgress({
      render: args.render,
      stateMachineArn: flags['state-machine-arn'],
      endpoint: flags.endpoint,
      region: flags.region,
      ...outputUrlFromFlags(flags),
    })
    this.log(flags.json ? JSON.stringify(progress) : progressLines(progress).join('\n'))
  }
}
