import {randomUUID} from 'node:crypto'
import {rm, writeFile} from 'node:fs/promises'
import {availableParallelism} from 'node:os'
import {basename, extname, join} from 'node:path'
import {outputExtension} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import {companionFileUrls, outputUrl, posterUrl} from './output-urls.js'
import {EngineError, toEngineError} from '../errors/engine-error.js'
import type {RenderLimits} from '../plan/render-limits.js'
import type {RenderOptionsInput} from '../plan/render-options.js'
import {defaultWorkerCount} from '../plan/worker-count.js'
import {compileOffThread} from './compile-off-thread.js'
import {resolveRenderOptions} from '../render/resolve-options.js'
import {BrowserPool} from '../browser/browser-pool.js'
import {renderComposition, type RenderRequest, type RenderResult} from '../render/render-composition.js'
import type {RenderEvent} from '../render/render-events.js'
import {deliverWebhook, renderPayload, type AddressPolicy, type WebhookPayload, type WebhookTarget} from '../notify/index.js'
import type {OutputStore} from './output-store.js'
import {WarningCollapser} from './collapse-warnings.js'
import {RenderQueue, type QueueStatus} from './render-queue.js'
import type {StreamEvent} from './stream-events.js'
import {EventJournal} from './event-journal.js'
import {makeTempDirectory} from '../files/temp-directory.js'

/** The render primitive the service runs in its slots (renderComposition, or a stand-in in tests). */
export type RenderFunction = (request: RenderRequest) => Promise<RenderResult>

/** A validated render request: exactly one of `composition` (a checked path) or `html`. */
export interface ServiceRequest {
  composition?: string
  html?: string
  options: RenderOptionsInput
  variables?: Record<string, unknown>
  /** Called when the render ends (already checked against `webhookPolicy`). */
  webhook?: WebhookTarget
  /** The output's file name stem (checked: see outputNameSchema); default the composition's. */
  outputName?: string
}

export interface RenderServiceOptions {
  maxConcurrentRenders: number
  maxQueue?: number
  outputs: OutputStore
  render?: RenderFunction
  log?: (line: string) => void
  /** Per-request limits checked against the compiled composition before it renders. */
  limits?: RenderLimits
  /** Capture workers one render may use; a request asking for more is capped (default: this machine's auto count). */
  maxWorkers?: number
  /** Addresses webhooks may reach (default: public ones only). */
  webhookPolicy?: AddressPolicy
  /** The project compositions by path may read (the server's --root); default: each one's own project. */
  root?: string
  /** Compositions may load public URLs (default true; `engine serve --no-network` clears it). */
  network?: boolean
  /** An idle browser process is ended after this long (default 60 s). */
  browserIdleMs?: number
}

interface Job {
  requestId: string
  request: ServiceRequest
  outputName: string
  /** Sends an event, collapsing repeated warnings. */
  send: (event: StreamEvent) => void
}

export interface AcceptedRender {
  requestId: string
  /** Every event of the request, numbered; follow it to stream them. */
  journal: EventJournal
  /** Settles (never rejects) once the final `complete` or `error` event has been sent. */
  finished: Promise<void>
}

/** What `GET /render/:requestId` answers: where a request is, without following its stream. */
export interface RenderStatus {
  requestId: string
  status: 'queued' | 'rendering' | 'complete' | 'failed' | 'cancelled'
  /** The id of its newest event: a stream resumed with this Last-Event-ID continues from here. */
  lastEventId: number
  /** Place in the queue while queued (1 is next). */
  position?: number
  progress?: {stage: string; frame: number; totalFrames: number; framesPerSecond?: number; etaSeconds?: number | null}
  /** While the finished output is still kept. */
  outputUrl?: string
  posterUrl?: string | null
  error?: {code: string; message: string}
}

/** Finished requests whose events stay readable (status, resumed streams): the newest ones. */
export const FINISHED_JOURNALS_KEPT = 200

const INLINE_NAME = 'composition'

/** Work other than a video render that takes a slot (see inSlot). */
interface SlotTask {
  requestId: string
  work: (signal: AbortSignal) => Promise<unknown>
}

/**
 * Runs render requests through the FIFO queue, writes their outputs into the output store and
 * reports each request's life as stream events.
 */
export class RenderService {
  private readonly queue: RenderQueue<Job | SlotTask, unknown>
  private readonly pending = new Map<string, Promise<void>>()
  /** Journals of pending requests and of the newest FINISHED_JOURNALS_KEPT finished ones, oldest first. */
  private readonly journals = new Map<string, EventJournal>()
  private readonly render: RenderFunction
  private readonly log: (line: string) => void
  /**
   * Warm browser processes shared by the renders this service runs one after another: at most as
   * many idle as its renders can use at once, each ended after a minute unused.
   */
  private readonly pool: BrowserPool

  constructor(private readonly options: RenderServiceOptions) {
    const workers = options.maxWorkers ?? defaultWorkerCount(availableParallelism())
    this.pool = new BrowserPool({maxIdle: options.maxConcurrentRenders * workers, idleTimeoutMs: options.browserIdleMs})
    this.render =
      options.render ?? ((request) => renderComposition({...request, pool: this.pool, compile: (path, compileOptions) => compileOffThread(path, compileOptions, request.signal)}))
    this.log = options.log ?? (() => {})
    this.queue = new RenderQueue({
      maxConcurrentRenders: options.maxConcurrentRenders,
      maxQueue: options.maxQueue,
      run: (job, signal) => ('work' in job ? job.work(signal) : this.run(job, signal)),
    })
  }

  get webhookPolicy(): AddressPolicy {
    return this.options.webhookPolicy ?? {allowPrivate: false}
  }

  status(): QueueStatus {
    return this.queue.status()
  }

  get outputs(): OutputStore {
    return this.options.outputs
  }

  /**
   * Queues a request. The first event (`queued` or `started`) is in its journal when this returns;
   * a full queue throws QUEUE_FULL before any event is made.
   */
  submit(request: ServiceRequest): AcceptedRender {
    const requestId = randomUUID()
    const journal = new EventJournal()
    const send = (event: StreamEvent) => journal.append(event)
    const arrived = performance.now()
    const outputName = request.outputName ?? (request.composition === undefined ? INLINE_NAME : basename(request.composition, extname(request.composition)))
    const warnings = new WarningCollapser()
    const relay = (event: StreamEvent) => {
      if (event.type !== 'warning' || warnings.accept(event.code)) send(event)
    }
    const sendFinal = (event: StreamEvent) => {
      for (const summary of warnings.summaries()) send({type: 'warning', requestId, ...summary})
      send(event)
    }
    const job: Job = {requestId, request, outputName, send: relay}
    // Registered first: onQueued/onStarted send the first event while queue.submit runs.
    this.journals.set(requestId, journal)
    let result: Promise<unknown>
    try {
      result = this.queue.submit(requestId, job, {
        onQueued: (position) => {
          this.log(`${requestId} queued at position ${position}`)
          send({type: 'queued', requestId, position})
        },
        onStarted: () => {
          this.log(`${requestId} started: ${request.composition ?? 'inline html'}`)
          send({type: 'started', requestId})
        },
      })
    } catch (error) {
      this.journals.delete(requestId)
      throw error
    }
    let payload: WebhookPayload | undefined
    const reportError = (error: unknown) => {
      const {code, message, details} = toEngineError(error).toJSON()
      this.log(`${requestId} ${code === 'CANCELLED' ? 'cancelled' : `failed [${code}]: ${message}`}`)
      sendFinal({type: 'error', requestId, code, message, ...(details === undefined ? {} : {details})})
      payload = renderPayload({id: requestId, renderMs: Math.round(performance.now() - arrived), error: {code, message}})
    }
    const finished = result
      .then(async (outcome) => {
        const rendered = outcome as RenderResult
        const renderMs = Math.round(performance.now() - arrived)
        await this.complete(requestId, rendered, renderMs, sendFinal)
        payload = renderPayload({
          id: requestId,
          output: outputUrl(requestId, rendered.output, getFormat(rendered.plan.format)),
          poster: rendered.poster ? posterUrl(requestId) : null,
          durationSeconds: rendered.durationSeconds,
          renderMs,
        })
      })
      .catch(reportError)
      .finally(() => {
        this.pending.delete(requestId)
        this.forgetOldJournals()
        // After the final event and outside the slot: a slow receiver holds up nothing.
        if (payload) void this.notify(request, payload)
      })
    this.pending.set(requestId, finished)
    return {requestId, journal, finished}
  }

  /** The events of a pending or recently finished request. */
  journal(requestId: string): EventJournal | undefined {
    return this.journals.get(requestId)
  }

  /** Where a pending or recently finished request is; undefined for one this server does not know. */
  statusOf(requestId: string): RenderStatus | undefined {
    const journal = this.journals.get(requestId)
    if (!journal) return undefined
    const base = {requestId, lastEventId: journal.latestId}
    const final = journal.final
    if (final?.type === 'complete') {
      const kept = this.outputs.get(requestId) !== undefined
      return {...base, status: 'complete', ...(kept && {outputUrl: final.outputUrl, posterUrl: final.posterUrl})}
    }
    if (final?.type === 'error') return {...base, status: final.code === 'CANCELLED' ? 'cancelled' : 'failed', error: {code: final.code, message: final.message}}
    const started = journal.latest('started')
    if (!started) return {...base, status: 'queued', position: journal.latest('queued')?.position}
    const progress = journal.latest('progress')
    if (!progress) return {...base, status: 'rendering'}
    const {type: _type, requestId: _id, ...rest} = progress
    return {...base, status: 'rendering', progress: rest}
  }

  private forgetOldJournals(): void {
    let finished = [...this.journals.keys()].filter((id) => !this.pending.has(id)).length
    for (const id of this.journals.keys()) {
      if (finished <= FINISHED_JOURNALS_KEPT) break
      if (this.pending.has(id)) continue
      this.journals.delete(id)
      finished--
    }
  }

  /**
   * Runs `work` in a render slot, in FIFO order with the renders, so that other kinds of requests
   * (stills) share the queue, its concurrency and its --max-queue limit. `cancel` aborts it.
   */
  inSlot<T>(work: (signal: AbortSignal, pool: BrowserPool) => Promise<T>): {id: string; result: Promise<T>; cancel: (reason: string) => void} {
    const id = randomUUID()
    const result = this.queue.submit(id, {requestId: id, work: (signal) => work(signal, this.pool)}) as Promise<T>
    return {id, result, cancel: (reason) => this.queue.cancel(id, new EngineError('CANCELLED', reason, {requestId: id}))}
  }

  /** Cancels a queued or running request and waits until its slot is free and its files are gone. */
  async cancel(requestId: string, reason = 'the render was cancelled'): Promise<boolean> {
    const finished = this.pending.get(requestId)
    if (!finished) return false
    this.queue.cancel(requestId, new EngineError('CANCELLED', reason, {requestId}))
    await finished
    return true
  }

  /** Whether a request is still waiting or rendering. */
  isPending(requestId: string): boolean {
    return this.pending.has(requestId)
  }

  /** The operator's per-request limits (every route: renders, their posters and stills). */
  get limits(): RenderLimits | undefined {
    return this.options.limits
  }

  /** The operator's network setting: a request may narrow it (`network: false`), never widen it. */
  networkFor(requested: boolean | undefined): boolean {
    return this.options.network !== false && requested !== false
  }

  /** Cancels everything, waits for the renders to stop, and releases the output store. */
  async close(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((id) => this.cancel(id, 'the server is shutting down')))
    await this.pool.close()
    await this.outputs.close()
  }

  private async complete(requestId: string, rendered: RenderResult, renderMs: number, send: (event: StreamEvent) => void): Promise<void> {
    const format = rendered.plan.format
    const isDirectory = outputExtension(getFormat(format)) === undefined
    await this.outputs.add({requestId, path: rendered.output, isDirectory, format, bytes: rendered.bytes, poster: rendered.poster})
    this.log(`${requestId} complete: ${rendered.totalFrames} frames, ${rendered.bytes} bytes, ${renderMs} ms`)
    send({
      type: 'complete',
      requestId,
      outputUrl: outputUrl(requestId, rendered.output, getFormat(format)),
      posterUrl: rendered.poster ? posterUrl(requestId) : null,
      format,
      bytes: rendered.bytes,
      duration: rendered.durationSeconds,
      totalFrames: rendered.totalFrames,
      hdr: rendered.plan.encode?.hdr ?? null,
      renderMs,
      timings: rendered.timings,
      fetchedUrls: rendered.fetchedUrls,
      cached: rendered.cached === true,
      ...(await companionFileUrls(requestId, rendered.output, getFormat(format))),
    })
  }

  /** The server's --max-workers bounds every request; `auto` means as many as the server allows. */
  private capWorkers(requestId: string, requested: number | 'auto', send: (event: StreamEvent) => void): number {
    const max = this.options.maxWorkers ?? defaultWorkerCount(availableParallelism())
    if (requested === 'auto') return max
    if (requested > max) {
      send({type: 'warning', requestId, code: 'workers-capped', message: `workers: ${requested} asked for; this server runs at most ${max} per render (engine serve --max-workers)`})
      return max
    }
    return requested
  }

  /** Calls the request's webhook after its final event; the outcome goes to the server log. */
  private async notify(request: ServiceRequest, payload: WebhookPayload): Promise<void> {
    if (!request.webhook) return
    const delivery = await deliverWebhook(request.webhook, payload, {policy: this.webhookPolicy})
    const outcome = delivery.delivered
      ? `delivered (HTTP ${delivery.statusCode}, ${delivery.attempts} attempt(s))`
      : `NOT delivered after ${delivery.attempts} attempt(s): ${delivery.error}`
    this.log(`${payload.id} webhook ${payload.type} to ${delivery.url} ${outcome} [delivery ${delivery.deliveryId}]`)
  }

  private async run(job: Job, signal: AbortSignal): Promise<RenderResult> {
    const {requestId, request, send} = job
    let inlineDir: string | undefined
    try {
      let composition = request.composition
      // An inline composition is a project of its own, with no files: it reaches none of the root's.
      let projectDir = this.options.root
      if (composition === undefined) {
        inlineDir = await makeTempDirectory('serve-inline')
        composition = join(inlineDir, `${INLINE_NAME}.html`)
        await writeFile(composition, request.html ?? '')
        projectDir = inlineDir
      }
      const options = resolveRenderOptions(request.options)
      const output = await this.outputs.prepare(requestId, job.outputName, getFormat(options.format))
      signal.throwIfAborted()
      return await this.render({
        composition,
        options: {
          ...options,
          workers: this.capWorkers(requestId, options.workers, send),
          output,
          json: false,
          quiet: true,
          network: this.networkFor(options.network),
          allowPrivateNetwork: false,
        },
        projectDir,
        variables: request.variables,
        signal,
        onEvent: relayTo(requestId, send),
        limits: this.options.limits,
      })
    } catch (error) {
      await this.outputs.discard(requestId)
      throw signal.aborted ? signal.reason : error
    } finally {
      if (inlineDir) await rm(inlineDir, {recursive: true, force: true})
    }
  }
}

/** Turns the render's own events into stream events (the final one is sent by the service). */
function relayTo(requestId: string, send: (event: StreamEvent) => void): (event: RenderEvent) => void {
  let totalFrames = 0
  let frame = 0
  return (event) => {
    if (event.type === 'start') {
      totalFrames = event.totalFrames
      const {type, composition: _composition, output: _output, ...plan} = event
      send({type, requestId, ...plan})
    } else if (event.type === 'stage' && event.stage !== 'done') {
      if (event.stage === 'assemble') frame = totalFrames
      send({type: 'progress', requestId, stage: event.stage, frame, totalFrames})
    } else if (event.type === 'progress') {
      frame = event.frame
      send({
        type: 'progress',
        requestId,
        stage: event.stage,
        frame,
        totalFrames: event.totalFrames,
        framesPerSecond: event.framesPerSecond,
        etaSeconds: event.etaSeconds,
      })
    } else if (event.type === 'warning') send({type: 'warning', requestId, code: event.code, message: event.message, ...(event.level && {level: event.level})})
  }
}
