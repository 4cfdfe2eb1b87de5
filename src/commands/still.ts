import {Args, Flags} from '@oclif/core'
import {extname, relative} from 'node:path'
import {BaseCommand} from '../cli/base-command.js'
import {assertStdoutOutput, renderToStdout, STDOUT_OUTPUT} from '../cli/stdout-output.js'
import {assertNoFailedRows, withBatchProgress} from '../cli/batch-progress.js'
import {renderFlags, renderFlagsToOptions} from '../cli/render-flags.js'
import {writeWarning} from '../cli/render-progress.js'
import {parseTimeFlag} from '../cli/time-flag.js'
import {renderBatch} from '../lib/batch/render-batch.js'
import {batchTextCheck} from '../lib/batch/row-text-check.js'
import {checkSingleRender} from '../cli/text-check.js'
import {BrowserPool} from '../lib/browser/browser-pool.js'
import {EngineError, toEngineError} from '../lib/errors/engine-error.js'
import {describeUndelivered, notifyRender, webhookFlags, webhookFromFlags} from '../cli/webhook-flags.js'
import {parseRenderOptions} from '../lib/plan/render-options.js'
import {resolveRenderOptions} from '../lib/render/resolve-options.js'
import {defaultStillPath, renderStill} from '../lib/still/render-still.js'
import {parseStillSettings, stillFormatOf} from '../lib/still/still-settings.js'
import {parseVariablesText, readVariablesFile} from '../lib/variables/read-overrides.js'
import {loadProjectConfig, trustProjectConfigFlag} from '../cli/project-config.js'
import {installMissingTools, yesFlag} from '../cli/install-missing-tools.js'
import {shardFlags, shardFromFlags} from '../cli/shard-flags.js'
import {assertRemoteOutputInBatch, outputStoresFor} from '../cli/output-stores.js'

const pick = <K extends keyof typeof renderFlags>(...keys: K[]) => Object.fromEntries(keys.map((key) => [key, renderFlags[key]])) as Pick<typeof renderFlags, K>

export default class Still extends BaseCommand {
  static override summary = 'Render one frame of a composition to a PNG, JPEG or WebP image'
  static override description =
    'Frame N is the frame a render shows at t = N / fps (default frame 0); --time S picks the frame on screen at S seconds. PNG and WebP keep transparency; the format follows the --output extension.'
  static override examples = [
    '<%= config.bin %> still index.html --time 1.5 -o renders/hello.png',
    '<%= config.bin %> still index.html --frame 45 --quality 85 -o thumb.jpg --variables \'{"title":"Hi"}\'',
    "<%= config.bin %> still index.html --batch rows.csv --output 'thumbs/{index}.jpg'",
  ]
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {
    frame: Flags.integer({description: 'frame number, from 0 (default 0)', exclusive: ['time']}),
    time: Flags.string({description: 'time in seconds; the frame on screen then', exclusive: ['frame']}),
    output: Flags.string({char: 'o', description: 'image file: .png, .jpg/.jpeg or .webp (batch: a template; `-`: a PNG to standard output). Default renders/<name>.png'}),
    quality: Flags.integer({description: 'JPEG/WebP quality 0-100 (default 92)'}),
    ...pick('scale', 'fps', 'variables', 'variables-file', 'strict-variables', 'strict-fonts', 'network', 'page-errors', 'cache', 'allow-private-network', 'browser-path', 'profile', 'video-frame-format', 'batch', 'batch-format', 'batch-concurrency', 'batch-fail-fast', 'on-overflow', 'check-only', 'resume', 'restart', 'results', 'quiet', 'json'),
    ...shardFlags,
    ...webhookFlags,
    ...trustProjectConfigFlag,
    ...yesFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Still)
    const {frame, time, quality, variables: variablesText, resume, restart, results, shard: shardFlag, 'shard-count': shardCount, output, webhook: webhookUrl, 'webhook-secret': webhookSecret, 'webhook-data': webhookData, 'trust-project-config': trustProjectConfig, config: configFile, yes, ...renderFlagValues} = flags
    const webhook = webhookFromFlags({webhook: webhookUrl, 'webhook-secret': webhookSecret, 'webhook-data': webhookData}, process.env)
    const still = parseStillSettings(
      {frame, time: time === undefined ? undefined : parseTimeFlag(time), quality},
      (key) => `--${key}`,
    )
    const config = await loadProjectConfig(trustProjectConfig, this.config.configDir, configFile)
    // A still is a frame of the render a config describes: its fps, browser and variables apply.
    const {format: _format, output: _output, ...configOptions} = config.options
    const options = resolveRenderOptions(configOptions, parseRenderOptions(renderFlagsToOptions({...renderFlagValues, output})))
    const batchOnly = resume ? '--resume' : restart ? '--restart' : results !== undefined ? '--results' : undefined
    if (batchOnly && !options.batch) throw new EngineError('INVALID_FLAG', `${batchOnly} only applies to a batch: add --batch <rows.csv>`)
    const shard = shardFromFlags({shard: shardFlag, 'shard-count': shardCount}, options.batch)
    assertRemoteOutputInBatch(options.output, options.batch)
    const variables = {
      ...options.variables,
      ...(options.variablesFile ? await readVariablesFile(options.variablesFile) : {}),
      ...(variablesText === undefined ? {} : parseVariablesText(variablesText)),
    }
    const toStdout = options.output === STDOUT_OUTPUT
    if (toStdout) assertStdoutOutput({'--batch': Boolean(options.batch), '--json': options.json})
    else if (options.output) stillFormatOf(options.output, '--output')
    await installMissingTools({yes, browser: !options.profile, ffmpeg: true, browserPath: options.browserPath})
    const controller = new AbortController()
    const cancel = (signal: NodeJS.Signals) => controller.abort(new EngineError('CANCELLED', `the still was interrupted (${signal})`, {signal}))
    process.once('SIGINT', cancel)
    process.once('SIGTERM', cancel)
    const pool = new BrowserPool()
    try {
      if (options.batch) {
        const outputStores = await outputStoresFor(this.config, options.output)
        const batch = await withBatchProgress(options, (line) => this.log(line), (onEvent) =>
          renderBatch({
            composition: args.composition,
            batchFile: options.batch!,
            // Rows are planned as frames of a frame-file render: no video size rules apply to an image.
            options: {...options, format: 'png-sequence'},
            defaultTemplate: batchTemplate(defaultStillPath(args.composition, 'png')),
            baseVariables: variables,
            resume,
            restart,
            results,
            shard,
            outputStores,
            render: async (request) => {
              const result = await renderStill({...request, still, pool})
              return {output: result.output, durationSeconds: 0, bytes: result.bytes, cached: result.cached, sha256: result.sha256}
            },
            textCheck: batchTextCheck(options, pool, still),
            signal: controller.signal,
            onEvent,
            webhook,
          }),
        )
        if (options.quiet) this.log(relative(process.cwd(), batch.manifest))
        if (!options.json) for (const delivery of batch.undeliveredWebhooks) process.stderr.write(describeUndelivered(delivery, delivery.row) + '\n')
        // An interrupted batch ends with the signal's status (its files say which rows were left), not as failed rows.
        if (controller.signal.aborted) throw controller.signal.reason
        assertNoFailedRows(batch)
        return
      }
      const checkOptions = {...options, format: 'png-sequence'}
      if (!(await checkSingleRender({composition: args.composition, options: checkOptions, variables, still, pool, signal: controller.signal}))) return
      const renderTo = (output: string | undefined) =>
        renderStill({
          composition: args.composition,
          options: {...options, output},
          still,
          variables,
          signal: controller.signal,
          pool,
          onEvent: (event) => {
            if (event.type !== 'warning') return
            if (options.json) this.log(JSON.stringify(event))
            else writeWarning(event)
          },
        })
      // -o - writes a PNG to standard output; the summary then goes to stderr.
      const began = performance.now()
      let result: Awaited<ReturnType<typeof renderTo>>
      try {
        result = toStdout ? await renderToStdout('.png', renderTo) : await renderTo(options.output)
      } catch (caught) {
        const error = controller.signal.aborted ? controller.signal.reason : caught
        if (webhook) await notifyRender(webhook, {error: toEngineError(error), renderMs: Math.round(performance.now() - began)}, options.json)
        throw error
      }
      const path = toStdout ? 'standard output' : relative(process.cwd(), result.output) || result.output
      const line = `${path}: frame ${result.frame} (${result.timeSeconds.toFixed(3)} s), ${result.width}x${result.height} ${result.format}, ${(result.bytes / 1e3).toFixed(1)} kB ${result.cached ? 'copied from the render cache ' : ''}in ${(result.renderMs / 1000).toFixed(1)} s`
      if (options.json) this.log(JSON.stringify({type: 'done', ...result}))
      else if (!toStdout) this.log(options.quiet ? path : line)
      else if (!options.quiet) process.stderr.write(line + '\n')
      if (webhook) await notifyRender(webhook, {output: toStdout ? STDOUT_OUTPUT : result.output, durationSeconds: 0, renderMs: result.renderMs}, options.json)
    } finally {
      await pool.close()
      process.off('SIGINT', cancel)
      process.off('SIGTERM', cancel)
    }
  }
}

/** `renders/<name>-{index}.png` beside where a single still would go. */
function batchTemplate(single: string): string {
  const extension = extname(single)
  return `${single.slice(0, -extension.length)}-{index}${extension}`
}
