import {Args, Flags} from '@oclif/core'
import {resolve} from 'node:path'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {checkOutputSettings, lambdaOutputFlags, outputSettingsFromFlags, outputUrlFlags, outputUrlFromFlags, pageErrorsFlag, required, stackFlags} from '../../cli/lambda-flags.js'
import {readStackRecord} from '../../lib/lambda/stack-record.js'
import {parseTimeFlag} from 'html-video-engine/internal/cli/time-flag.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {BUCKET_ENV, createS3Client} from '../../lib/lambda/aws-clients.js'
import {deploySite, siteHandleFromId} from '../../lib/lambda/deploy-site.js'
import {BucketObjects} from '../../lib/lambda/s3-objects.js'
import {stillOnLambda} from '../../lib/lambda/still-on-lambda.js'
import {assertStorageKey} from 'html-video-engine/internal/lib/render/storage-key.js'
import {parseStillSettings, stillFormatOf} from 'html-video-engine/internal/lib/still/still-settings.js'
import {parseFps} from 'html-video-engine/internal/lib/plan/fps.js'
import {parseRenderOptions, STILL_FORMATS, type PageErrorMode} from 'html-video-engine/internal/lib/plan/render-options.js'
import {parseVariablesText} from 'html-video-engine/internal/lib/variables/read-overrides.js'

export default class LambdaStill extends BaseCommand {
  static override summary = 'Render one frame on the serverless stack: one function invocation, no workflow'
  static override description =
    'The frame and image follow `engine still`: frame N is t = N / fps (default frame 0), --time S the frame on screen at S seconds; PNG and WebP keep transparency. ' +
    'The image is stored at --output-key (default stills/<id>.<ext>) and, with --output, also saved here.'
  static override examples = [
    '<%= config.bin %> lambda still examples/hello --time 1.5 --output-key thumbs/ada.jpg --variables \'{"title":"Hi Ada"}\'',
    '<%= config.bin %> lambda still ./my-project --site-id 3f9c0c2d5b1e4a7f9d2c1b0a --frame 45 --format webp -o poster.webp',
  ]
  static override args = {projectDir: Args.string({description: 'project directory (its index.html is the composition)', required: true})}
  static override flags = {
    'site-id': Flags.string({description: 'use an uploaded site instead of uploading the project'}),
    frame: Flags.integer({description: 'frame number, from 0 (default 0)', exclusive: ['time']}),
    time: Flags.string({description: 'time in seconds; the frame on screen then', exclusive: ['frame']}),
    format: Flags.string({description: 'image format (default: from --output-key or --output, else png)', options: [...STILL_FORMATS]}),
    quality: Flags.integer({description: 'JPEG/WebP quality 0-100 (default 92)'}),
    scale: Flags.string({description: 'device scale factor 0.1-16: the image is width·F x height·F'}),
    fps: Flags.string({description: 'frames per second the frame number counts in (default the composition\'s)'}),
    variables: Flags.string({description: 'variable overrides as JSON object text'}),
    'strict-fonts': Flags.boolean({description: 'a font that falls back fails the still'}),
    'page-errors': pageErrorsFlag,
    'output-key': Flags.string({description: 'storage key of the image (default stills/<id>.<ext>)'}),
    output: Flags.string({char: 'o', description: 'also save the image to this file'}),
    'function-name': Flags.string({description: 'render function (default: the one the stack record names)'}),
    json: Flags.boolean({description: 'machine-readable output'}),
    ...stackFlags,
    ...outputUrlFlags,
    ...lambdaOutputFlags,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(LambdaStill)
    // Everything is checked before the site is uploaded, so a bad value costs nothing.
    const outputKey = flags['output-key'] === undefined ? undefined : assertStorageKey(flags['output-key'], '--output-key')
    const output = outputSettingsFromFlags(flags)
    const named = flags.format ?? formatOfPath(outputKey, '--output-key') ?? formatOfPath(flags.output, '--output')
    const settings = parseStillSettings({frame: flags.frame, time: flags.time === undefined ? undefined : parseTimeFlag(flags.time), quality: flags.quality, format: named}, (key) => `--${key}`)
    const format = settings.format ?? 'png'
    for (const [flag, path] of [['--output-key', outputKey], ['--output', flags.output]] as const) {
      if (path !== undefined && stillFormatOf(path, flag) !== format) {
        throw new EngineError('INVALID_FLAG', `${flag}: "${path}" does not end in an extension of ${format}; name the file for the format, or drop --format`, {[flag]: path, format})
      }
    }
    const bucketName = required(flags.bucket, 'bucket', BUCKET_ENV)
    const aws = {endpoint: flags.endpoint, region: flags.region}
    const urlOptions = outputUrlFromFlags(flags)
    // Checked with the render's own rules, so the message names the flag, the value and the range.
    const {fps, scale} = parseRenderOptions({fps: flags.fps, scale: flags.scale === undefined ? undefined : Number(flags.scale)})
    if (fps !== undefined) parseFps(fps, '--fps')
    const config = {
      ...settings,
      format,
      ...(fps !== undefined && {fps}),
      ...(scale !== undefined && {scale}),
      ...(flags['strict-fonts'] && {strictFonts: true}),
      ...(flags['page-errors'] !== undefined && {pageErrors: flags['page-errors'] as PageErrorMode}),
      ...(flags.variables !== undefined && {variables: parseVariablesText(flags.variables)}),
      ...output,
    }
    const s3 = createS3Client(aws)
    const kept = checkOutputSettings(output, await readStackRecord(new BucketObjects(s3, bucketName)))
    if (kept) process.stderr.write(`warning [delete-after-unchecked]: ${kept}\n`)
    const siteHandle = flags['site-id'] ? siteHandleFromId(flags['site-id'], bucketName) : await deploySite({projectDir: args.projectDir, bucketName, ...aws})
    const still = await stillOnLambda({siteHandle, config, outputKey, functionName: flags['function-name'], ...aws, ...urlOptions})
    if (flags.output) await new BucketObjects(s3, output.outputBucket ?? bucketName).downloadFile(still.outputKey, resolve(flags.output))
    for (const warning of still.warnings) {
      if (flags.json) this.log(JSON.stringify({type: 'warning', ...warning}))
      else process.stderr.write(`warning [${warning.code}]: ${warning.message}\n`)
    }
    if (flags.json) {
      this.log(JSON.stringify({type: 'done', ...still, ...(flags.output && {output: resolve(flags.output)})}))
      return
    }
    this.log(`${still.outputKey}: frame ${still.frame} (${still.timeSeconds.toFixed(3)} s), ${still.width}x${still.height} ${still.format}, ${(still.bytes / 1e3).toFixed(1)} kB in ${(still.renderMs / 1000).toFixed(1)} s on ${still.functionName}`)
    if (still.outputUrl) this.log(`url: ${still.outputUrl.url}`)
    if (flags.output) this.log(`saved: ${flags.output}`)
  }
}

/** The format a path names by its extension, or undefined when no path is given. */
function formatOfPath(path: string | undefined, flag: string) {
  return path === undefined ? undefined : stillFormatOf(path, flag)
}
