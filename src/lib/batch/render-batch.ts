import {availableParallelism, freemem, loadavg} from 'node:os'
import {resolve} from 'node:path'
import {batchLayout} from './batch-concurrency.js'
import {applyVariables} from '../compose/apply-variables.js'
import {compileComposition} from '../compose/compile-composition.js'
import {getFormat} from '../encode/format-registry.js'
import {servedCoverage} from '../fonts/row-text-coverage.js'
import {planRender} from '../plan/plan-render.js'
import {assertOutputExtension} from '../render/format-from-output.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {WebhookTarget} from '../notify/index.js'
import type {BatchEventListener} from './batch-events.js'
import {ManifestStore} from './manifest-store.js'
import {defaultOutputTemplate} from './output-template.js'
import {preflightBatch} from './preflight.js'
import {readBatchFile} from './read-batch-file.js'
import {runBatch, type BatchSummary, type RenderRow} from './run-batch.js'
import {compositionContent, freshManifest, renderSettings, resumeManifest, type BatchIdentity} from './start-manifest.js'

export interface BatchRequest {
  /** Path of the composition HTML file. */
  composition: string
  /** Path of the batch file (`--batch`). */
  batchFile: string
  /** `options.output` is the template; without it, `renders/<name>-{index}.<ext>`. */
  options: ResolvedRenderOptions
  /** `--variables-file` < `--variables`: the layer under every row. */
  baseVariables?: Record<string, unknown>
  /** Keep the rows the existing manifest records as completed. */
  resume?: boolean
  /** Renders one row: `renderComposition`, or one bound to shared resources. */
  render: RenderRow
  signal?: AbortSignal
  onEvent?: BatchEventListener
  /** Directory relative templates resolve against (default: the working directory). */
  cwd?: string
  /** Called once per finished row and once when the batch ends (see runBatch). */
  webhook?: WebhookTarget
}

/**
 * `engine render --batch`: reads the rows, checks all of them before the first render (throwing
 * one BATCH_PREFLIGHT error that lists every problem), then renders them with a manifest next to
 * the outputs. Resolves with the counts also when rows failed; the caller decides the exit status.
 */
export async function renderBatch(request: BatchRequest): Promise<BatchSummary> {
  const {options} = request
  const cwd = request.cwd ?? process.cwd()
  const emit = request.onEvent ?? (() => {})
  const baseVariables = request.baseVariables ?? {}
  assertOutputExtension(options.output, options.format)
  const batch = await readBatchFile(resolve(cwd, request.batchFile))
  const compositionPath = resolve(cwd, request.composition)
  // Compile and plan once: whatever fails here would fail every row, so it fails the batch now.
  // Rows reuse the template and apply their own values (applyVariables), never compiling again.
  const template = await compileComposition(compositionPath, {strictVariables: options.strictVariables, downloadFonts: options.network !== false})
  const compiled = applyVariables(template, baseVariables, options.strictVariables)
  const format = getFormat(options.format)
  planRender(compiled, options, format)

  const outputTemplate = resolve(cwd, options.output ?? defaultOutputTemplate(compositionPath, format, cwd))
  const {jobs, manifestPath, warnings} = preflightBatch({
    rows: batch.rows,
    template: outputTemplate,
    cwd,
    declarations: compiled.declarations,
    compositionId: compiled.compositionId,
    baseVariables,
    strict: options.strictVariables,
    compositionFindings: compiled.findings,
    fontCoverage: servedCoverage(compiled.fonts),
    strictFonts: options.strictFonts,
    fontFindings: compiled.fonts.findings,
  })
  for (const warning of warnings) emit({type: 'warning', ...warning})
  const identity: BatchIdentity = {
    composition: compositionPath,
    ...compositionContent(compositionPath, compiled.sourceFiles),
    baseVariables,
    batchFile: batch.path,
    rowsSha256: batch.rowsSha256,
    outputTemplate,
    settings: renderSettings(options),
  }
  const {manifest, notices} = request.resume
    ? await resumeManifest(identity, jobs, manifestPath)
    : {manifest: freshManifest(identity, jobs, manifestPath), notices: []}
  for (const notice of notices) emit({type: 'warning', ...notice})

  const layout = batchLayout(options.batchConcurrency, jobs.length, {cores: availableParallelism(), loadAverage: loadavg()[0], freeMemoryBytes: freemem()})
  const rowOptions = layout.workersPerRow !== undefined && options.workers === 'auto' ? {...options, workers: layout.workersPerRow} : options
  return runBatch({
    composition: compositionPath,
    options: rowOptions,
    jobs,
    store: new ManifestStore(manifestPath, manifest),
    render: request.render,
    template,
    concurrency: layout.rows,
    failFast: options.batchFailFast,
    signal: request.signal,
    onEvent: emit,
    webhook: request.webhook,
  })
}
