import {availableParallelism, freemem} from 'node:os'
import {dirname, resolve} from 'node:path'
import type {Readable} from 'node:stream'
import {batchLayout} from './batch-concurrency.js'
import {busyCores} from './busy-cores.js'
import {EngineError} from '../errors/engine-error.js'
import {applyVariables} from '../compose/apply-variables.js'
import {compileComposition, type CompiledComposition} from '../compose/compile-composition.js'
import {getFormat} from '../encode/format-registry.js'
import {servedCoverage} from '../fonts/row-text-coverage.js'
import {planRender} from '../plan/plan-render.js'
import {assertOutputExtension} from '../render/format-from-output.js'
import {assertDurationWritten} from '../render/time-composition.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import type {WebhookTarget} from '../notify/index.js'
import type {BatchEventListener} from './batch-events.js'
import {assertNoEarlierRun} from './earlier-run.js'
import {JobSpool} from './job-spool.js'
import {ManifestStore} from './manifest-store.js'
import {defaultOutputTemplate} from './output-template.js'
import {preflightBatch, type PreflightInput, type PreflightResult} from './preflight.js'
import {openRowSource, readRows, type RowSource} from './rows/read-rows.js'
import {STDIN_BATCH} from './rows/batch-format.js'
import {removeStaleResults, resultsPath, rowColumns, writeBatchResults} from './results/batch-results.js'
import {resultSheetFormat} from './results/result-sheet.js'
import {rowDataNotice} from './row-data-notice.js'
import {runBatch, type BatchSummary, type RenderRow} from './run-batch.js'
import type {RowTextCheck} from './row-text-check.js'
import {sweepPartialOutputs} from './sweep-partial-outputs.js'
import {inShard, type ShardSpec} from '../shard/shard-spec.js'
import {shardManifestPath} from '../shard/shard-files.js'
import {isRemoteTemplate, RemoteOutput, type OutputStore} from './remote-output.js'
import type {BatchJob} from './preflight.js'
import type {RowRecord} from './batch-manifest.js'
import {compositionContent, manifestHead, renderSettings, resumeRows, type BatchIdentity, type ResumedRows} from './start-manifest.js'

export interface BatchRequest {
  /** Path of the composition HTML file. */
  composition: string
  /** Path of the batch file (`--batch`), or `-` for standard input; `options.batchFormat` or its extension says how to read it. */
  batchFile: string
  /** What `-` reads (default: the process's standard input). */
  stdin?: Readable
  /** `options.output` is the template for every row; without it, rows may name their own output and the others use `defaultTemplate`. */
  options: ResolvedRenderOptions
  /** The template without `--output` (default: `renders/<name>-{index}.<ext>`). */
  defaultTemplate?: string
  /** `--variables-file` < `--variables`: the layer under every row. */
  baseVariables?: Record<string, unknown>
  /** Keep the rows the existing manifest records as completed. */
  resume?: boolean
  /** Render every row again over an earlier run's manifest; without it (or `resume`) such a batch is refused (BATCH_EXISTS). */
  restart?: boolean
  /** Renders one row: `renderComposition`, or one bound to shared resources. */
  render: RenderRow
  signal?: AbortSignal
  onEvent?: BatchEventListener
  /** Directory relative templates resolve against (default: the working directory). */
  cwd?: string
  /** Called once per finished row and once when the batch ends (see runBatch). */
  webhook?: WebhookTarget
  /** The check pass before each row's render (see runBatch); none without it. */
  textCheck?: RowTextCheck
  /** The result sheet (`--results`, .csv or .jsonl); default results.csv beside the manifest (a shard's: results.shard-I-of-N.csv). */
  results?: string
  /** Render only this shard's rows (`--shard`), with a manifest of its own; preflight still checks every row. */
  shard?: ShardSpec
  /** Stores for `--output` URLs (`s3://…`), by scheme: the `engine:output-stores` hook's, or the SDK caller's. */
  outputStores?: readonly OutputStore[]
}

/**
 * Reads and checks every row into the spool, then removes what killed renders left beside the
 * outputs: once per batch, not per row (a row's own sweep would read its folder, which holds every
 * other row's output). The map of outputs the check needed is dropped when this returns.
 */
async function checkRows(
  source: RowSource,
  compiled: CompiledComposition,
  input: Pick<PreflightInput, 'template' | 'rowOutputs' | 'cwd' | 'baseVariables'> & {options: ResolvedRenderOptions; shard?: ShardSpec; remote?: RemoteOutput},
  spool: JobSpool,
): Promise<Omit<PreflightResult, 'outputs'> & {rows: number}> {
  let rows = 0
  const {outputs, ...checked} = await preflightBatch(
    {
      ...input,
      rows: readRows(source, compiled.declarations),
      declarations: compiled.declarations,
      compositionId: compiled.compositionId,
      strict: input.options.strictVariables,
      compositionFindings: compiled.findings,
      fontCoverage: servedCoverage(compiled.fonts),
      strictFonts: input.options.strictFonts,
      fontFindings: compiled.fonts.findings,
      images: {
        projectDir: compiled.projectDir,
        pageDir: dirname(compiled.file),
        network: {publicUrls: input.options.network !== false, privateAddresses: input.options.allowPrivateNetwork === true},
      },
      outputProblem: input.remote?.outputProblem,
    },
    (job) => {
      if (!inShard(job.index, input.shard)) return
      rows++
      return spool.append(input.remote ? {...job, url: input.remote.urlOf(job.output)} : job)
    },
  )
  await spool.seal()
  // Other shards' partial files are renders still running on other workers.
  await sweepPartialOutputs(input.shard ? new Map([...outputs].filter(([, row]) => inShard(row, input.shard))) : outputs)
  return {...checked, rows}
}

/**
 * The batch's manifest store: every row pending, or with `--resume` the rows an earlier run
 * completed kept (the records read for that are dropped when this returns).
 */
async function openStore(
  identity: BatchIdentity,
  checked: Pick<PreflightResult, 'manifestPath' | 'total'> & {rows: number},
  spool: JobSpool,
  emit: BatchEventListener,
  request: Pick<BatchRequest, 'resume' | 'restart' | 'webhook' | 'options' | 'shard'>,
  manifestPath: string,
  remote: RemoteOutput | undefined,
  afterCompaction: () => Promise<void>,
): Promise<ManifestStore> {
  if (!request.resume && !request.restart) await assertNoEarlierRun(manifestPath)
  // A row's own webhook call and poster come after its output is in place: a row killed between the two is not adopted.
  const adopt = request.webhook === undefined && request.options.poster === undefined && remote === undefined
  const stored = remote && ((job: BatchJob, record: RowRecord) => remote.storedProblem(job.output, record.bytes))
  const resumed: ResumedRows = request.resume ? await resumeRows(identity, manifestPath, spool.jobs(), adopt, stored) : {kept: new Map(), notices: []}
  for (const notice of resumed.notices) emit({type: 'warning', ...notice})
  const shard = request.shard
  const head = {...manifestHead(identity, checked.rows, resumed.createdAt), ...(shard && {shard: {index: shard.index, count: shard.count}})}
  // Rows keep their index in the input, so the store has a slot for every row of the batch.
  return ManifestStore.start(manifestPath, head, checked.rows, () => spool.jobs(), resumed.kept, {capacity: checked.total, afterCompaction})
}

/**
 * `engine render --batch`: reads the rows once as a stream and checks all of them before the first
 * render (throwing one BATCH_PREFLIGHT error that lists the problems), then renders them with a
 * manifest next to the outputs. Memory does not grow with the rows: checked rows wait in a spool
 * file, the manifest's state is an array slot per row. Resolves with the counts also when rows
 * failed; the caller decides the exit status.
 */
export async function renderBatch(request: BatchRequest): Promise<BatchSummary> {
  const {options} = request
  const cwd = request.cwd ?? process.cwd()
  const emit = request.onEvent ?? (() => {})
  const baseVariables = request.baseVariables ?? {}
  assertOutputExtension(options.output, options.format)
  if (request.results !== undefined) resultSheetFormat(request.results)
  const batchFile = request.batchFile === STDIN_BATCH ? STDIN_BATCH : resolve(cwd, request.batchFile)
  const source = await openRowSource(batchFile, options.batchFormat, request.stdin)
  const compositionPath = resolve(cwd, request.composition)
  // Compile and plan once: whatever fails here would fail every row, so it fails the batch now.
  // Rows reuse the template and apply their own values (applyVariables), never compiling again.
  const template = await compileComposition(compositionPath, {strictVariables: options.strictVariables, downloadFonts: options.network !== false})
  const compiled = await applyVariables(template, baseVariables, options.strictVariables)
  const format = getFormat(options.format)
  if (options.strict) assertDurationWritten(compiled)
  // Each row's page tells a length its root does not write; any length checks the rest of the plan.
  const {plan: checkedPlan} = planRender({...compiled, durationSeconds: compiled.durationSeconds ?? 1}, options, format)

  const remote = isRemoteTemplate(options.output) ? await RemoteOutput.open(options.output, request.outputStores ?? [], cwd) : undefined
  if (remote && format.worker !== 'frame-files' && format.companionFilePattern) {
    throw new EngineError('INVALID_FLAG', `--output ${options.output}: --format ${format.name} writes files beside its output (segments, sidecars), and a remote output stores one file per row; render it to a local folder`, {output: options.output, format: format.name})
  }
  const outputTemplate = remote ? remote.localTemplate : resolve(cwd, options.output ?? request.defaultTemplate ?? defaultOutputTemplate(compositionPath, format, cwd))
  const spool = await JobSpool.create()
  try {
    const checked = await checkRows(source, compiled, {template: outputTemplate, rowOutputs: options.output === undefined, cwd, baseVariables, options, shard: request.shard, remote}, spool)
    for (const warning of checked.warnings) emit({type: 'warning', ...warning})
    const dataNotice = rowDataNotice(checked)
    if (dataNotice) emit({type: 'warning', ...dataNotice})

    const identity: BatchIdentity = {
      composition: compositionPath,
      ...compositionContent(compositionPath, compiled.sourceFiles),
      baseVariables,
      batchFile,
      rowsSha256: checked.rowsSha256,
      outputTemplate: remote ? options.output! : outputTemplate,
      settings: renderSettings(options, checkedPlan.fps),
    }
    const manifestPath = request.shard ? shardManifestPath(checked.manifestPath, request.shard) : checked.manifestPath
    const sheet = resultsPath(manifestPath, request.results, cwd)
    // The sheet is replaced: never over the rows it is made from.
    if (sheet === batchFile || sheet === manifestPath) {
      throw new EngineError('INVALID_FLAG', `--results "${request.results}" is the batch's ${sheet === batchFile ? 'rows file' : 'manifest'}, which the sheet would replace; name another file, such as results.csv`, {results: sheet})
    }
    // The sheet is rewritten at each of the manifest's compactions while the batch runs (a spreadsheet can follow it) and at the end.
    let columns: Promise<string[]> | undefined
    const writeSheet = async () => writeBatchResults(sheet, store, () => spool.jobs(), await (columns ??= rowColumns(spool.jobs())))
    const store = await openStore(identity, checked, spool, emit, request, manifestPath, remote, writeSheet)
    await removeStaleResults(sheet)
    const pendingRows = checked.rows - store.counts.completed - store.counts.cached
    const busy = options.batchConcurrency === 'auto' ? await busyCores() : 0
    const layout = batchLayout(options.batchConcurrency, pendingRows, {cores: availableParallelism(), busyCores: busy, freeMemoryBytes: freemem()})
    const rowOptions = layout.workersPerRow !== undefined && options.workers === 'auto' ? {...options, workers: layout.workersPerRow} : options
    const summary = await runBatch({
      composition: compositionPath,
      options: rowOptions,
      jobs: spool.jobs(),
      total: checked.rows,
      shard: request.shard,
      store,
      render: remote ? remote.wrap(request.render) : request.render,
      template,
      concurrency: layout.rows,
      failFast: options.batchFailFast,
      signal: request.signal,
      onEvent: emit,
      webhook: request.webhook,
      textCheck: request.textCheck,
      results: {path: sheet, write: writeSheet},
    })
    if (remote) {
      await remote.putBatchFile(summary.manifest)
      if (summary.results !== undefined) await remote.putBatchFile(summary.results)
    }
    return summary
  } finally {
    await spool.remove()
  }
}
