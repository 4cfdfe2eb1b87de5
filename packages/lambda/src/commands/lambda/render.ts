import {Args, Flags, type Interfaces} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {
  checkOutputSettings,
  chunkTuningFlags,
  configFromFlags,
  lambdaEncodeFlags,
  lambdaOutputFlags,
  lambdaSizeFlags,
  outputSettingsFromFlags,
  outputUrlFlags,
  outputUrlFromFlags,
  required,
  stackFlags,
  stateMachineFlag,
} from '../../cli/lambda-flags.js'
import {progressLines, progressTick} from '../../cli/lambda-progress-text.js'
import {lambdaWebhookFlags} from 'html-video-engine/internal/cli/webhook-flags.js'
import {lambdaWebhookFromFlags} from '../../cli/lambda-webhook.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {BUCKET_ENV, createS3Client, STATE_MACHINE_ENV} from '../../lib/lambda/aws-clients.js'
import {deploySite, siteHandleFromId} from '../../lib/lambda/deploy-site.js'
import {renderToLambda} from '../../lib/lambda/render-to-lambda.js'
import {waitForRender} from '../../lib/lambda/wait-for-render.js'
import {parseVariablesText} from 'html-video-engine/internal/lib/variables/read-overrides.js'
import {assertStorageKey} from 'html-video-engine/internal/lib/render/storage-key.js'
import {assertDeployedFormat, readStackRecord} from '../../lib/lambda/stack-record.js'
import {estimatePrice} from '../../lib/lambda/estimate-price.js'
import {BucketObjects} from '../../lib/lambda/s3-objects.js'

export default class LambdaRender extends BaseCommand {
  static override summary = 'Render one video on the serverless stack'
  static override examples = [
    '<%= config.bin %> lambda render examples/hello --variables \'{"title":"Hi Ada"}\' --output-key out/ada.mp4 --wait',
    '<%= config.bin %> lambda render ./my-project --site-id 3f9c0c2d5b1e4a7f9d2c1b0a --target-chunk-frames 120',
    '<%= config.bin %> lambda render examples/hello --width 1920 --height 1080 --estimate',
  ]
  static override args = {projectDir: Args.string({description: 'project directory (its index.html is the composition)', required: true})}
  static override flags = {
    'site-id': Flags.string({description: 'use an uploaded site instead of uploading the project'}),
    variables: Flags.string({description: 'variable overrides as JSON object text'}),
    'output-key': Flags.string({description: 'storage key of the result (default renders/<renderId>/output.<ext>)'}),
    wait: Flags.boolean({description: 'wait for the render to finish, showing progress'}),
    estimate: Flags.boolean({description: "print what the render would cost (from its chunk plan and an assumed chunk profile) and start nothing, upload nothing"}),
    json: Flags.boolean({description: 'machine-readable output'}),
    ...lambdaSizeFlags,
    ...lambdaEncodeFlags,
    ...chunkTuningFlags,
    ...stackFlags,
    ...stateMachineFlag,
    ...lambdaWebhookFlags,
    ...outputUrlFlags,
    ...lambdaOutputFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaRender)
    if (flags.estimate) return this.estimate(args.projectDir, flags)
    // Checked before the site is uploaded, so a bad key costs nothing.
    const outputKey = flags['output-key'] === undefined ? undefined : assertStorageKey(flags['output-key'], '--output-key')
    const output = outputSettingsFromFlags(flags)
    const bucketName = required(flags.bucket, 'bucket', BUCKET_ENV)
    const stateMachineArn = required(flags['state-machine-arn'], 'state-machine-arn', STATE_MACHINE_ENV)
    const aws = {endpoint: flags.endpoint, region: flags.region}
    const webhook = lambdaWebhookFromFlags(flags, process.env)
    const urlOptions = outputUrlFromFlags(flags)
    const config = {...configFromFlags(flags), ...output, ...(flags.variables === undefined ? {} : {variables: parseVariablesText(flags.variables)})}
    await assertDeployedFormat({bucketName, format: config.format ?? 'mp4', ...aws})
    const kept = checkOutputSettings(output, await readStackRecord(new BucketObjects(createS3Client(aws), bucketName)))
    if (kept) process.stderr.write(`warning [delete-after-unchecked]: ${kept}\n`)
    const siteHandle = flags['site-id']
      ? siteHandleFromId(flags['site-id'], bucketName)
      : await deploySite({projectDir: args.projectDir, bucketName, ...aws})
    const handle = await renderToLambda({siteHandle, bucketName, stateMachineArn, config, outputKey, webhook, ...aws})
    if (!flags.wait) {
      if (flags.json) this.log(JSON.stringify(handle))
      else this.log(`renderId: ${handle.renderId}\nexecutionArn: ${handle.executionArn}`)
      return
    }
    if (!flags.json) process.stderr.write(`renderId: ${handle.renderId}\nexecutionArn: ${handle.executionArn}\n`)
    let last = ''
    const progress = await waitForRender({
      render: handle.executionArn,
      ...aws,
      ...urlOptions,
      onProgress: (report) => {
        const line = progressTick(report)
        if (flags.json) this.log(JSON.stringify({type: 'progress', ...report}))
        else if (line !== last) process.stderr.write(line + '\n')
        last = line
      },
    })
    if (!flags.json) this.log(progressLines(progress).join('\n'))
    if (progress.status !== 'SUCCEEDED') {
      const error = progress.error ?? {code: 'INTERNAL' as const, message: `the render ended ${progress.status}`}
      throw new EngineError(error.code, `render ${handle.renderId} ${progress.status}: ${error.message}`, error.details)
    }
  }

  /** --estimate: the price before anything is uploaded or started; the deployed function's memory when the stack is known. */
  private async estimate(projectDir: string, flags: Interfaces.InferredFlags<typeof LambdaRender.flags>): Promise<void> {
    const config = {...configFromFlags(flags), ...(flags.variables === undefined ? {} : {variables: parseVariablesText(flags.variables)})}
    const stack = flags.bucket ? await readStackRecord(new BucketObjects(createS3Client({endpoint: flags.endpoint, region: flags.region}), flags.bucket)) : undefined
    const estimate = await estimatePrice({projectDir, config, memoryMb: stack?.memoryMb})
    if (flags.json) {
      this.log(JSON.stringify(estimate))
      return
    }
    this.log(
      `Estimate: ${estimate.frames} frames at ${estimate.width}x${estimate.height} in ${estimate.chunks} chunk${estimate.chunks === 1 ? '' : 's'} on ${estimate.memoryMb} MB` +
        `${stack ? ' (the deployed function)' : ''}: about ${estimate.usd.toFixed(4)} USD ` +
        `(${estimate.lambdaGbSeconds} GB-s, ${estimate.requests} invocations, ${estimate.stateTransitions} state transitions; S3 not included)`,
    )
    const [shortest, longest] = [Math.min(...estimate.assumedSeconds.chunks), Math.max(...estimate.assumedSeconds.chunks)].map((value) => value.toFixed(1))
    const chunks = shortest === longest ? `${shortest} s` : `${shortest}-${longest} s`
    this.log(`Assumed: plan ${estimate.assumedSeconds.plan} s, chunks ${chunks} each, assemble ${estimate.assumedSeconds.assemble} s; \`lambda progress\` prices a render from its real run times`)
  }
}
