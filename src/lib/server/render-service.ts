import {randomUUID} from 'node:crypto'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {basename, extname, join} from 'node:path'
import {outputExtension} from '../encode/format-plugin.js'
import {getFormat} from '../encode/format-registry.js'
import {EngineError, toEngineError} from '../errors/engine-error.js'
import type {RenderOptionsInput} from '../plan/render-options.js'
import {resolveRenderOptions} from '../plan/resolve-options.js'
import {BrowserPool} from '../browser/browser-pool.js'
import {renderComposition, type RenderRequest, type RenderResult} from '../render/render-composition.js'
import type {RenderEvent} from '../render/render-events.js'
import type {OutputStore} from './output-store.js'
import {RenderQueue, type QueueStatus} from './render-queue.js'
import type {StreamEvent} from './stream-events.js'

/** The render primitive the service runs in its slots (renderComposition, or a stand-in in tests). */
export type RenderFunction = (request: RenderRequest) => Promise<RenderResult>

/** A validated render request: exactly one of `composition` (a checked path) or `html`. */
export interface ServiceRequest {
  composition?: string
  html?: string
  options: RenderOptionsInput
  variables?: Record<string, unknown>
}

export interface RenderServiceOptions {
  maxConcurrentRenders: number
  maxQueue?: number
  outputs: OutputStore
  render?: RenderFunction
  log?: (line: string) => void
}

interface Job {
  requestId: string
  request: ServiceRequest
  outputName: string
  send: (event: StreamEvent) => void
}

export interface AcceptedRender {
  requestId: string
  /** Settles (never rejects) once the final `complete` or `error` event has been sent. */
  finished: Promise<void>
}

const INLINE_NAME = 'composition'

/**
 * Runs render requests through the FIFO queue, writes their outputs into the output store and
 * reports each request's life as stream events.
 */
export class RenderService {
  private readonly queue: RenderQueue<Job, RenderResult>
  private readonly pending = new Map<string, Promise<void>>()
  private readonly render: RenderFunction
  private readonly log: (line: string) => void
  /** Warm browser processes shared by the renders this service runs one after another. */
  private readonly pool = new BrowserPool()

  constructor(private readonly options: RenderServiceOptions) {
    this.render = options.render ?? ((request) => renderComposition({...request, pool: this.pool}))
    this.log = options.log ?? (() => {})
    this.queue = new RenderQueue({
      maxConcurrentRenders: options.maxConcurrentRenders,
      maxQueue: options.maxQueue,
      run: (job, signal) => this.run(job, signal),
    })
  }

  status(): QueueStatus {
    return this.queue.status()
  }

  get outputs(): OutputStore {
    return this.options.outputs
  }

  /**
   * Queues a request. The first event (`queued` or `started`) is sent before this returns; a full
   * queue throws QUEUE_FULL before any event is sent.
   */
  submit(request: ServiceRequest, send: (event: StreamEvent) => void): AcceptedRender {
    const requestId = randomUUID()
    const arrived = performance.now()
    const outputName = request.composition === undefined ? INLINE_NAME : basename(request.composition, extname(request.composition))
    const job: Job = {requestId, request, outputName, send}
    const result = this.queue.submit(requestId, job, {
      onQueued: (position) => {
        this.log(`${requestId} queued at position ${position}`)
        send({type: 'queued', requestId, position})
      },
      onStarted: () => {
        this.log(`${requestId} started: ${request.composition ?? 'inline html'}`)
        send({type: 'started', requestId})
      },
    })
    const reportError = (error: unknown) => {
      const {code, message, details} = toEngineError(error).toJSON()
      this.log(`${requestId} ${code === 'CANCELLED' ? 'cancelled' : `failed [${code}]: ${message}`}`)
      send({type: 'error', requestId, code, message, ...(details === undefined ? {} : {details})})
    }
    const finished = result
      .then((rendered) => this.complete(requestId, rendered, Math.round(performance.now() - arrived), send))
      .catch(reportError)
      .finally(() => this.pending.delete(requestId))
    this.pending.set(requestId, finished)
    return {requestId, finished}
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

  /** Cancels everything, waits for the renders to stop, and releases the output store. */
  async close(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((id) => this.cancel(id, 'the server is shutting down')))
    await this.pool.close()
    await this.outputs.close()
  }

  private async complete(requestId: string, rendered: RenderResult, renderMs: number, send: (event: StreamEvent) => void): Promise<void> {
    const format = rendered.plan.format
    const isDirectory = outputExtension(getFormat(format)) === undefined
    await this.outputs.add({requestId, path: rendered.output, isDirectory, format, bytes: rendered.bytes})
    this.log(`${requestId} complete: ${rendered.totalFrames} frames, ${rendered.bytes} bytes, ${renderMs} ms`)
    send({
      type: 'complete',
      requestId,
      outputUrl: `/render/${requestId}/output`,
      format,
      bytes: rendered.bytes,
      duration: rendered.durationSeconds,
      totalFrames: rendered.totalFrames,
      renderMs,
      timings: rendered.timings,
    })
  }

  private async run(job: Job, signal: AbortSignal): Promise<RenderResult> {
    const {requestId, request, send} = job
    let inlineDir: string | undefined
    try {
      let composition = request.composition
      if (composition === undefined) {
        inlineDir = await mkdtemp(join(tmpdir(), 'engine-serve-inline-'))
        composition = join(inlineDir, `${INLINE_NAME}.html`)
        await writeFile(composition, request.html ?? '')
      }
      const options = resolveRenderOptions(request.options)
      const output = await this.outputs.prepare(requestId, job.outputName, getFormat(options.format))
      signal.throwIfAborted()
      return await this.render({
        composition,
        options: {...options, output, json: false, quiet: true},
        variables: request.variables,
        signal,
        onEvent: relayTo(requestId, send),
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
    if (event.type === 'start') totalFrames = event.totalFrames
    else if (event.type === 'stage' && event.stage !== 'done') {
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
    } else if (event.type === 'warning') send({type: 'warning', requestId, code: event.code, message: event.message})
  }
}
