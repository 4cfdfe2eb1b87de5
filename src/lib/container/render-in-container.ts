import {randomUUID} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {pipeline} from 'node:stream/promises'
import {mkdir, rm, rmdir, stat, writeFile} from 'node:fs/promises'
import {dirname, join, parse, resolve} from 'node:path'
import type {BatchEvent, BatchEventListener} from '../batch/batch-events.js'
import {defaultOutputTemplate} from '../batch/output-template.js'
import {STDIN_BATCH} from '../batch/rows/batch-format.js'
import {openRowSource, type RowSource} from '../batch/rows/read-rows.js'
import {readCompositionFile} from '../compose/read-composition-file.js'
import {getFormat} from '../encode/format-registry.js'
import {removePartialsOf} from '../encode/partial-path.js'
import {EngineError, type ErrorJson} from '../errors/engine-error.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {defaultOutputPath} from '../render/output-path.js'
import type {RenderEvent, RenderEventListener} from '../render/render-events.js'
import {listInstalledPlugins, type InstalledPlugin} from '../config/installed-plugins.js'
import {isWithin, renderMounts, templateOutputDir} from './container-mounts.js'
import {containerPlugins} from './container-plugins.js'
import {pathMapping, type PathMapping} from './container-paths.js'
import {containerRunArgs} from './container-run-command.js'
import {detectContainerRuntime, type ContainerRuntime} from './detect-container-runtime.js'
import {ensureImage} from './ensure-image.js'
import {innerRenderArgs} from './inner-render-args.js'
import {CONTAINER_RUNTIME_ENV, pickContainerRuntime} from './pick-container-runtime.js'
import {runContainerClient} from './run-container-client.js'
import {makeTempDirectory} from '../files/temp-directory.js'

/** Where the variables engine hands to the container are mounted. */
export const CONTAINER_VARIABLES_FILE = '/engine/input/variables.json'
/** The container's working directory: no engine config is found there, so only the options passed count. */
const CONTAINER_WORKDIR = '/tmp'
const CONTAINER_ENV = {HOME: '/tmp', ENGINE_CACHE_DIR: '/tmp/engine-cache'}

export type RenderDone = Extract<RenderEvent, {type: 'done'}>
export type BatchDone = Extract<BatchEvent, {type: 'batch-done'}>

export interface ContainerRenderRequest {
  composition: string
  /** `options.batch` must be absent here and set for renderBatchInContainer. */
  options: ResolvedRenderOptions
  /** Command-line variables, already merged (--variables-file < --variables). */
  variables?: Record<string, unknown>
  signal?: AbortSignal
  /** Lines printed while the image is built (first use only). */
  onBuildLog?: (line: string) => void
  cwd?: string
  env?: NodeJS.ProcessEnv
  /** Finds the installed runtimes (default: asks docker and podman). */
  detect?: () => Promise<ContainerRuntime[]>
  /** The user's plugins, handed to the engine inside (default: those oclif finds here). */
  listPlugins?: () => Promise<InstalledPlugin[]>
}

/**
 * Renders one composition inside the engine-render image under the deterministic profile: the
 * project is mounted read-only and the output directory writable, both at their own paths, the
 * variables are handed over as a file, the inner engine's events are relayed as they arrive, and
 * its error becomes this render's error. Without a usable container runtime it fails before
 * writing anything.
 */
export async function renderInContainer(request: ContainerRenderRequest & {onEvent?: RenderEventListener}): Promise<RenderDone> {
  const relay = new EventRelay<RenderEvent, RenderDone>('done', request.onEvent)
  return runInContainer(request, relay)
}

/** The same for a batch (`options.batch`): rows, manifest and batch events come from the engine inside. */
export async function renderBatchInContainer(request: ContainerRenderRequest & {onEvent?: BatchEventListener; resume?: boolean; restart?: boolean}): Promise<BatchDone> {
  const relay = new EventRelay<BatchEvent, BatchDone>('batch-done', request.onEvent)
  return runInContainer(request, relay, {resume: request.resume, restart: request.restart})
}

async function runInContainer<Event extends RenderEvent | BatchEvent, Done>(
  request: ContainerRenderRequest,
  relay: EventRelay<Event, Done>,
  rerun: {resume?: boolean; restart?: boolean} = {},
): Promise<Done> {
  const {options, signal} = request
  const cwd = request.cwd ?? process.cwd()
  if (options.gpu) {
    throw new EngineError('INVALID_FLAG', '--gpu cannot be combined with --docker: the container has no access to the host video encoders; drop one of them', {
      gpu: true,
      docker: true,
    })
  }
  const composition = resolve(cwd, request.composition)
  const format = getFormat(options.format)
  await readCompositionFile(composition, 'composition')
  // The engine inside reads the rows from a mounted file: its format is decided here, where the name is known.
  const batchSource = options.batch ? await openRowSource(options.batch === STDIN_BATCH ? STDIN_BATCH : resolve(cwd, options.batch), options.batchFormat) : undefined
  const output = batchSource
    ? resolve(cwd, options.output ?? defaultOutputTemplate(composition, format, cwd))
    : options.output
      ? resolve(cwd, options.output)
      : defaultOutputPath(composition, format, cwd)
  const outputDir = batchSource ? templateOutputDir(output) : dirname(output)
  const projectDir = isWithin(composition, cwd) && parse(cwd).root !== cwd ? cwd : dirname(composition)

  const preferred = (request.env ?? process.env)[CONTAINER_RUNTIME_ENV]
  const runtime = pickContainerRuntime(await (request.detect ?? detectContainerRuntime)(), {preferred})
  const image = await ensureImage({
    runtime,
    signal,
    onLog: request.onBuildLog,
    onBuildStart: (tag) =>
      relay.warn(
        'container-image-build',
        `building ${tag} with ${runtime.name}: the first --docker render of this engine version builds it (a few minutes; \`engine docker build\` does it ahead); later renders reuse it`,
      ),
  })
  signal?.throwIfAborted()

  const mapping = pathMapping()
  relay.mapping = mapping
  const outputExisted = batchSource === undefined && (await stat(output).catch(() => undefined)) !== undefined
  const scratch = await makeTempDirectory('container')
  let createdOutputDir: string | undefined
  let succeeded = false
  try {
    const batch = batchSource && (await batchFileOf(batchSource, scratch))
    const plugins = await containerPlugins(await (request.listPlugins ?? listInstalledPlugins)(), scratch, mapping)
    const variables = request.variables ?? {}
    const variablesFile = Object.keys(variables).length > 0 ? join(scratch, 'variables.json') : undefined
    if (variablesFile) await writeFile(variablesFile, JSON.stringify(variables))
    const mounts = renderMounts(
      {
        projectDir,
        outputDir,
        inputFiles: batch ? [batch] : [],
        internalFiles: variablesFile ? [{source: variablesFile, target: CONTAINER_VARIABLES_FILE}] : [],
        inputDirectories: plugins?.directories,
      },
      mapping,
    )
    // The runtime cannot create a mount point inside a read-only project, so the output directory must exist.
    createdOutputDir = await mkdir(outputDir, {recursive: true})
    const name = `engine-render-${process.pid}-${randomUUID().slice(0, 8)}`
    const uid = process.getuid?.()
    const gid = process.getgid?.()
    const args = containerRunArgs({
      runtime,
      image,
      name,
      mounts,
      env: {...CONTAINER_ENV, ...plugins?.env},
      user: uid === undefined || gid === undefined ? undefined : {uid, gid},
      workdir: CONTAINER_WORKDIR,
      command: innerRenderArgs({
        composition: mapping.toContainer(composition),
        options,
        output: mapping.toContainer(output),
        batch: batch === undefined ? undefined : {path: mapping.toContainer(batch), format: batchSource!.format},
        variablesFile: variablesFile && CONTAINER_VARIABLES_FILE,
        ...rerun,
      }),
    })
    const run = await runContainerClient(runtime.name, args, {
      onStdout: (line) => relay.line(line),
      signal,
      onAbort: async () => {
        await runContainerClient(runtime.name, ['kill', name]).catch(() => undefined)
      },
    })
    if (signal?.aborted) throw new EngineError('CANCELLED', 'the render was cancelled; its container was stopped')
    if (relay.error) throw new EngineError(relay.error.code, relay.error.message, relay.error.details)
    if (run.exitCode !== 0 || relay.done === undefined) throw containerFailure(runtime.name, image, run.exitCode, run.stderrTail)
    succeeded = true
    return relay.done
  } finally {
    await rm(scratch, {recursive: true, force: true})
    if (!succeeded && !batchSource) await removeInnerLeftovers(output, outputExisted)
    if (!succeeded && createdOutputDir) await removeEmptyDirectories(outputDir, createdOutputDir)
  }
}

/** The file the engine inside reads the rows from: the batch file itself, or standard input saved to `scratch`. */
async function batchFileOf(source: RowSource, scratch: string): Promise<string> {
  if (source.path !== STDIN_BATCH) return source.path
  const saved = join(scratch, `rows.${source.format}`)
  await pipeline(source.stdin ?? process.stdin, createWriteStream(saved))
  return saved
}

/**
 * A container that is killed cannot clean up: its partial output stays in the mounted directory, and
 * a render that finished just as it was cancelled leaves a result this run does not report.
 */
async function removeInnerLeftovers(output: string, outputExisted: boolean): Promise<void> {
  await removePartialsOf(output)
  if (!outputExisted) await rm(output, {recursive: true, force: true})
}

/**
 * Reads the inner engine's `--json` lines: maps their paths back to the host, hands them on, and
 * keeps the final event and the error. The engine inside is this very version, so its events
 * have exactly this engine's shapes.
 */
class EventRelay<Event extends RenderEvent | BatchEvent, Done> {
  mapping: PathMapping = pathMapping()
  error: ErrorJson | undefined
  done: Done | undefined

  constructor(
    private readonly doneType: string,
    private readonly listener?: (event: Event) => void,
  ) {}

  /** Render and batch events share the warning shape. */
  warn(code: string, message: string): void {
    this.listener?.({type: 'warning', code, message} as Event)
  }

  line(text: string): void {
    let event: Record<string, unknown>
    try {
      event = JSON.parse(text) as Record<string, unknown>
    } catch {
      return
    }
    if (typeof event !== 'object' || event === null || typeof event.type !== 'string') return
    for (const key of ['composition', 'output', 'manifest']) {
      if (typeof event[key] === 'string') event[key] = this.mapping.toHost(event[key])
    }
    if (event.type === 'error') {
      this.error = event.error as ErrorJson
      return
    }
    // A batch row's own `done` carries a row number; only the final event of the whole run counts.
    if (event.type === this.doneType && !('row' in event)) this.done = event as Done
    this.listener?.(event as unknown as Event)
  }
}

function containerFailure(runtime: string, image: string, exitCode: number | null, stderrTail: string[]): EngineError {
  const said = stderrTail.filter((line) => line.trim()).slice(-3).join(' | ')
  const why =
    exitCode === 137
      ? 'it was killed, most often for running out of memory: give the container runtime more memory or use fewer --workers'
      : exitCode === 125
        ? `${runtime} could not start it`
        : exitCode === null
          ? 'it was stopped by a signal'
          : `it exited with code ${exitCode} without reporting an error`
  return new EngineError('CONTAINER_FAILED', `the render container (${image}) failed: ${why}${said ? ` (${said})` : ''}`, {
    runtime,
    image,
    exitCode,
    stderr: stderrTail,
  })
}

/** Removes `directory` and its parents up to `top` (the first one this render created), while they are empty. */
async function removeEmptyDirectories(directory: string, top: string): Promise<void> {
  for (let current = directory; isWithin(current, top); current = dirname(current)) {
    try {
      await rmdir(current)
    } catch {
      return
    }
    if (current === top) return
  }
}
