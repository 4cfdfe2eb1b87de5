import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {renderArg, renderLookupFlags} from '../../cli/lambda-flags.js'
import {cancelRender} from '../../lib/lambda/cancel-render.js'

export default class LambdaCancel extends BaseCommand {
  static override summary = 'Stop a running serverless render and delete its scratch'
  static override description =
    'Stops the execution (progress then shows it ABORTED with a CANCELLED error), records the cancellation in renders/<renderId>/cancelled.json ' +
    'and deletes scratch/<renderId>/. --json adds stoppedAfterMs (until the execution was stopped) and durationMs (the whole cancel), as measured. On AWS, chunks already running finish their invocation; what they still write expires with the scratch lifecycle rule.'
  static override examples = [
    '<%= config.bin %> lambda cancel lx2k9a1b-0f3c2a9d1e',
    '<%= config.bin %> lambda cancel arn:aws:states:eu-west-1:123456789012:execution:engine-render:lx2k9a1b-0f3c2a9d1e --json',
  ]
  static override args = renderArg
  static override flags = {
    ...renderLookupFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaCancel)
    const cancelled = await cancelRender({render: args.render, stateMachineArn: flags['state-machine-arn'], endpoint: flags.endpoint, region: flags.region})
    if (flags.json) {
      this.log(JSON.stringify(cancelled))
      return
    }
    this.log(
      cancelled.stopped
        ? `Cancelled render ${cancelled.renderId}: execution stopped after ${cancelled.stoppedAfterMs} ms, ${cancelled.scratchObjectsDeleted} scratch objects deleted (${cancelled.durationMs} ms in all)`
        : `Render ${cancelled.renderId} was already stopped; its scratch is cleaned up (${cancelled.scratchObjectsDeleted} objects deleted)`,
    )
  }
}
