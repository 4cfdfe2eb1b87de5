import {Args} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../cli/base-command.js'
import {assertNoFailedRows, withBatchProgress} from '../cli/batch-progress.js'
import {renderFlags, renderFlagsToOptions} from '../cli/render-flags.js'
import {jsonLines, withProgress} from '../cli/render-progress.js'
import {describeUndelivered, notifyRender, webhookFlags, webhookFromFlags} from '../cli/webhook-flags.js'
import {installMissingTools, yesFlag} from '../cli/install-missing-tools.js'
import {shardFlags, shardFromFlags} from '../cli/shard-flags.js'
import {assertRemoteOutputInBatch, outputStoresFor} from '../cli/output-stores.js'
import {describeShard} from '../lib/shard/shard-spec.js'
import {renderBatch} from '../lib/batch/render-batch.js'
import {batchTextCheck} from '../lib/batch/row-text-check.js'
import {checkSingleRender} from '../cli/text-check.js'
import {BrowserPool} from '../lib/browser/browser-pool.js'
import {renderBatchInContainer, renderInContainer} from '../lib/container/render-in-container.js'
import {EngineError, isEngineError, toEngineError} from '../lib/errors/engine-error.js'
import {parseRenderOptions} from '../lib/plan/render-options.js'
import {assertOutputExtension} from '../lib/render/format-from-output.js'
import {resolveRenderOptions} from '../lib/render/resolve-options.js'
import {renderComposition, type RenderResult} from '../lib/render/render-composition.js'
import type {RenderEventListener} from '../lib/render/render-events.js'
import {renderOnServer} from '../lib/server-client/render-on-server.js'
import {parseVariablesText, readVariablesFile} from '../lib/variables/read-overrides.js'
import {loadProjectConfig, trustProjectConfigFlag} from '../cli/project-config.js'
import {assertStdoutOutput, renderToStdout, STDOUT_OUTPUT} from '../cli/stdout-output.js'
import {exitAfterCancelGrace} from '../cli/cancel-deadline.js'
import {outputExtension} from '../lib/encode/format-plugin.js'
import {getFormat} from '../lib/encode/format-registry.js'

export default class Render extends BaseCommand {
  static override summary = 'Render a composition to a video, an animated image or an image sequence'
  // Written for a project made by `engine init` (index.html, rows.csv); test/cli/help-examples.test.ts runs each one.
  static override examples = [
    {description: 'In a project made by `engine init`: writes renders/<folder name>.mp4', command: '<%= config.bin %> render index.html'},
    '<%= config.bin %> render index.html --format webm --scale 0.5 --variables \'{"title":"Hi Ada"}\' -o renders/ada.webm',
    '<%= config.bin %> render index.html --format png-sequence --frames 0-29 --workers 2 --json',
    "<%= config.bin %> render index.html --batch rows.csv -o 'renders/{index}-{title}.mp4' --quality draft --batch-concurrency auto",
    "<%= config.bin %> render index.html --batch rows.csv -o 'renders/{index}-{title}.mp4' --quality draft --resume",
    'printf \'{"title":"From a pipe"}\\n\' | <%= config.bin %> render index.html --batch - -o \'renders/piped/{index}.mp4\' --quality draft',
    '<%= config.bin %> render index.html --yes',
  ]
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {...renderFlags, ...shardFlags, ...webhookFlags, ...trustProjectConfigFlag, ...yesFlag}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Render)
    // --resume steers this one command run; it is not a render option (config, server, SDK).
    const {variables: variablesText, resume, restart, results, shard: shardFlag, 'shard-count': shardCount, server, webhook: webhookUrl, 'webhook-secret': webhookSecret, 'webhook-data': webhookData, 'trust-project-config': trustProjectConfig, config: configFile, yes, ...otherFlags} = flags
    const webhook = webhookFromFlags({webhook: webhookUrl, 'webhook-secret': webhookSecret, 'webhook-data': webhookData}, process.env)
    const config = await loadProjectConfig(trustProjectConfig, this.config.configDir, configFile)
    const fromFlags = parseRenderOptions(renderFlagsToOptions(otherFlags))
    const options = resolveRenderOptions(config.options, fromFlags)
    assertOutputExtension(options.output, options.format)
    const toStdout = options.output === STDOUT_OUTPUT
    const extension = outputExtension(getFormat(options.format))
    if (toStdout) {
      assertStdoutOutput({'--batch': Boolean(options.batch), '--json': options.json, '--poster': options.poster !== undefined, '--docker': options.docker, [`--format ${options.format} (a directory of files)`]: extension === undefined})
    }
    const batchOnly = resume ? '--resume' : restart ? '--restart' : results !== undefined ? '--results' : undefined
    if (batchOnly && !options.batch) throw new EngineError('INVALID_FLAG', `${batchOnly} only applies to a batch: add --batch <rows.csv>`)
    const shard = shardFromFlags({shard: shardFlag, 'shard-count': shardCount}, options.batch)
    assertRemoteOutputInBatch(options.output, options.batch)
    if (shard && options.docker) throw new EngineError('INVALID_FLAG', `${describeShard(shard)}: --docker renders the whole batch in one container; drop --docker to render a shard`)
    if (server !== undefined && options.batch) throw new EngineError('INVALID_FLAG', '--server renders one composition; drop --batch or --server')
    if (options.docker && server !== undefined) throw new EngineError('INVALID_FLAG', '--docker renders on this machine; drop --docker or --server')
    if (options.docker && otherFlags['browser-path'] !== undefined) {
      throw new EngineError('INVALID_FLAG', '--browser-path cannot be combined with --docker: the container captures with its own pinned browser')
    }

    const variables = {
      ...options.variables,
      ...(options.variablesFile ? await readVariablesFile(options.variablesFile) : {}),
      ...(variablesText === undefined ? {} : parseVariablesText(variablesText)),
    }
    // A first render on a bare machine fetches its browser and ffmpeg (announced, with consent).
    if (server === undefined && !options.docker) await installMissingTools({yes, browser: !options.profile, ffmpeg: true, browserPath: options.browserPath})
    const controller = new AbortController()
    const cancel = (signal: NodeJS.Signals) => {
      const error = new EngineError('CANCELLED', `the render was interrupted (${signal})`, {signal})
      controller.abort(error)
      exitAfterCancelGrace(error, options.json)
    }
    process.once('SIGINT', cancel)
    process.once('SIGTERM', cancel)
    const onQueued = (position: number, requestId: string) => {
      if (options.json) process.stdout.write(JSON.stringify({type: 'queued', requestId, position}) + '\n')
      else if (!options.quiet) process.stderr.write(`queued on ${server}: position ${position}\n`)
    }
    const onBuildLog = options.quiet ? undefined : (line: string) => process.stderr.write(line + '\n')
    const renderTo = (output: string | undefined, onEvent?: RenderEventListener): Promise<RenderSummary> => {
      const request = {composition: args.composition, options: {...options, output}, variables, signal: controller.signal, onEvent}
      if (server !== undefined) return renderOnServer({...request, server, onQueued})
      return options.docker ? renderInContainer({...request, onBuildLog}) : renderComposition(request)
    }
    const run = (onEvent?: RenderEventListener): Promise<RenderSummary> =>
      toStdout ? renderToStdout(extension!, (path) => renderTo(path, onEvent)) : renderTo(options.output, onEvent)
    try {
      if (options.batch) {
        const log = (line: string) => this.log(line)
        if (options.docker) {
          if (webhook) throw new EngineError('INVALID_FLAG', '--webhook with --batch --docker is not supported yet: drop --docker, or call the webhook from your own script after the batch')
          if (results !== undefined) throw new EngineError('INVALID_FLAG', '--results with --batch --docker is not supported yet: the batch writes results.csv beside its manifest; drop --results')
          const done = await withBatchProgress(options, log, (onEvent) =>
            renderBatchInContainer({composition: args.composition, options, variables, resume, restart, signal: controller.signal, onEvent, onBuildLog}),
          )
          if (options.quiet) this.log(relative(process.cwd(), done.manifest))
          return
        }
        // Rows share warm browser processes instead of launching one per worker per row.
        const outputStores = await outputStoresFor(this.config, options.output)
        const pool = new BrowserPool()
        const batch = await withBatchProgress(options, log, (onEvent) =>
          renderBatch({
            composition: args.composition,
            batchFile: options.batch!,
            options,
            baseVariables: variables,
            resume,
            restart,
            results,
            shard,
            outputStores,
            render: (request) => renderComposition({...request, pool}),
            textCheck: batchTextCheck(options, pool),
            signal: controller.signal,
            onEvent,
            webhook,
          }),
        ).finally(() => pool.close())
        if (options.quiet) this.log(relative(process.cwd(), batch.manifest))
        // --json already carried them as webhook events.
        if (!options.json) for (const delivery of batch.undeliveredWebhooks) process.stderr.write(describeUndelivered(delivery, delivery.row) + '\n')
        // An interrupted batch ends with the signal's status (its files say which rows were left), not as failed rows.
        if (controller.signal.aborted) throw controller.signal.reason
        assertNoFailedRows(batch)
        return
      }
      // In a container the inner render runs the check (the flags go with it).
      if (!options.docker && !(await checkSingleRender({composition: args.composition, options, variables, signal: controller.signal}, server !== undefined))) return
      const began = performance.now()
      let result: RenderSummary
      try {
        if (options.json) result = await run(jsonLines)
        else if (options.quiet) result = await run()
        else result = await withProgress(`Rendering ${args.composition}`, run)
      } catch (caught) {
        // An interrupted render reports the signal that stopped it (the exit status depends on it).
        const error = controller.signal.aborted ? controller.signal.reason : caught
        if (webhook) await notifyRender(webhook, {error: toEngineError(error), renderMs: Math.round(performance.now() - began)}, options.json)
        throw error
      }
      // With -o - the file is standard output: the summary goes to stderr.
      if (toStdout) {
        if (!options.quiet) process.stderr.write(summary({...result, output: 'standard output'}, false) + '\n')
      } else if (!options.json) this.log(summary(result, options.quiet))
      if (webhook) await notifyRender(webhook, {output: toStdout ? STDOUT_OUTPUT : result.output, poster: result.poster, durationSeconds: result.durationSeconds, renderMs: result.timings.totalMs}, options.json)
    } finally {
      process.off('SIGINT', cancel)
      process.off('SIGTERM', cancel)
    }
  }

  /** A container that died without an engine error keeps its exit code (137 for out of memory, for example). */
  protected override async catch(error: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    const result = await super.catch(error)
    const exitCode = isEngineError(error, 'CONTAINER_FAILED') ? (error.details as {exitCode?: unknown} | undefined)?.exitCode : undefined
    if (typeof exitCode === 'number' && exitCode > 0) process.exitCode = exitCode
    return result
  }
}

/** What the summary line needs; a local render and a render on a producer server both provide it. */
type RenderSummary = Pick<RenderResult, 'output' | 'bytes' | 'totalFrames' | 'durationSeconds' | 'cached'> & {poster?: string | null; timings: {totalMs: number}}

function summary(result: RenderSummary, quiet: boolean): string {
  const path = relative(process.cwd(), result.output) || result.output
  if (quiet) return path
  const seconds = result.timings.totalMs / 1000
  const mb = (result.bytes / 1e6).toFixed(2)
  const poster = result.poster ? `; poster ${relative(process.cwd(), result.poster) || result.poster}` : ''
  const how = result.cached ? `copied from the render cache in ${seconds.toFixed(1)} s` : `rendered in ${seconds.toFixed(1)} s (${(result.totalFrames / seconds).toFixed(1)} frames/s)`
  return `${path}: ${result.totalFrames} frames, ${result.durationSeconds.toFixed(2)} s of video, ${mb} MB, ${how}${poster}`
}
