import {isAbsolute, resolve, sep} from 'node:path'
import {getFormat} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'
import {flagName, RENDER_DEFAULTS, type RenderOptionsInput} from '../plan/render-options.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {defaultOutputPath} from '../render/output-path.js'
import type {RenderEventListener} from '../render/render-events.js'
import {CLIENT_OPTION_KEYS, type RenderStreamBody} from '../server/request-schema.js'
import {TOKEN_ENV} from '../server/server-settings.js'
import {downloadOutput} from './download-output.js'
import {companionOutputName} from './download-companions.js'
import {DEFAULT_POSTER_FORMAT, posterPath} from '../still/poster.js'
import {getQueueStatus, streamRender, type ServerConnection} from './server-api.js'

export interface ServerRenderRequest {
  /** Base address of a running `engine serve`. */
  server: string
  /** Bearer token; defaults to ENGINE_SERVER_TOKEN. */
  token?: string
  /** Composition path as the user wrote it; the server resolves it inside its --root. */
  composition: string
  options: ResolvedRenderOptions
  variables?: Record<string, unknown>
  signal?: AbortSignal
  /** Receives the render's progress translated into local render events. */
  onEvent?: RenderEventListener
  /** Called while the request waits for a free slot (position 1 = next). */
  onQueued?: (position: number, requestId: string) => void
}

export interface ServerRenderResult {
  requestId: string
  /** Local path the output was downloaded to. */
  output: string
  /** Local path of the poster, when one was asked for. */
  poster?: string
  bytes: number
  totalFrames: number
  durationSeconds: number
  timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
}

/** Options that only matter on this machine, never sent to the server. */
const LOCAL_KEYS = new Set<string>(['output', 'json', 'quiet', 'variables', 'variablesFile', 'maxConcurrentRenders'])

/**
 * Renders on a producer server: posts the request, relays its progress, and downloads the
 * result to `--output` (default renders/<name>.<ext>, as for a local render).
 */
export async function renderOnServer(request: ServerRenderRequest): Promise<ServerRenderResult> {
  const {options, signal} = request
  assertServerCanHonour(options)
  const connection: ServerConnection = {url: request.server, token: request.token ?? process.env[TOKEN_ENV]}
  const emit = request.onEvent ?? (() => {})
  if (options.maxConcurrentRenders !== RENDER_DEFAULTS.maxConcurrentRenders) {
    const {maxConcurrentRenders} = await getQueueStatus(connection, signal)
    if (maxConcurrentRenders !== options.maxConcurrentRenders) {
      emit({
        type: 'warning',
        code: 'max-concurrent-renders',
        message: `the server at ${request.server} runs ${maxConcurrentRenders} render(s) at once; --max-concurrent-renders ${options.maxConcurrentRenders} takes effect where the server is started (engine serve --max-concurrent-renders)`,
      })
    }
  }
  const output = options.output ? resolve(options.output) : defaultOutputPath(request.composition, getFormat(options.format))
  let totalFrames = 0
  for await (const event of streamRender(connection, {...requestBody(request), ...companionOutputName(getFormat(options.format), output)}, signal)) {
    if (event.type === 'queued') request.onQueued?.(event.position, event.requestId)
    else if (event.type === 'started') emit({type: 'stage', stage: 'compile'})
    else if (event.type === 'start') {
      const {requestId: _requestId, ...plan} = event
      emit({...plan, composition: request.composition, output})
    }
    else if (event.type === 'warning') emit({type: 'warning', code: event.code, message: event.message, ...(event.level && {level: event.level})})
    else if (event.type === 'progress') {
      totalFrames = event.totalFrames
      if (event.framesPerSecond === undefined) emit({type: 'stage', stage: event.stage})
      else {
        emit({
          type: 'progress',
          stage: event.stage,
          frame: event.frame,
          totalFrames,
          framesPerSecond: event.framesPerSecond,
          etaSeconds: event.etaSeconds ?? null,
        })
      }
    } else if (event.type === 'error') {
      throw new EngineError(event.code, event.message, event.details)
    } else {
      emit({type: 'stage', stage: 'assemble'})
      await downloadOutput(connection, event.outputUrl, output, {expected: event, signal})
            const poster = event.posterUrl ? posterPath(output, getFormat(options.format), options.posterFormat ?? DEFAULT_POSTER_FORMAT) : undefined
      if (event.posterUrl && poster) await downloadOutput(connection, event.posterUrl, poster, {signal})
      const result = {
        requestId: event.requestId,
        output,
        poster,
        bytes: event.bytes,
        totalFrames: event.totalFrames,
        durationSeconds: event.duration,
        timings: event.timings,
      }
      emit({type: 'stage', stage: 'done'})
      emit({
        type: 'done',
        output,
        bytes: event.bytes,
        totalFrames: event.totalFrames,
        durationSeconds: event.duration,
        framesPerSecond: Math.round((event.totalFrames / Math.max(event.timings.totalMs / 1000, 0.001)) * 10) / 10,
        fetchedUrls: event.fetchedUrls ?? [],
        hdr: event.hdr,
        poster: poster ?? null,
        timings: event.timings,
      })
      return result
    }
  }
  throw new EngineError('SERVER_UNAVAILABLE', `the producer server at ${request.server} ended the stream without a result (${totalFrames} frames announced)`)
}

function requestBody(request: ServerRenderRequest): RenderStreamBody {
  const body: Record<string, unknown> = {
    composition: isAbsolute(request.composition) ? request.composition : request.composition.split(sep).join('/'),
  }
  if (request.variables && Object.keys(request.variables).length > 0) body.variables = request.variables
  for (const key of CLIENT_OPTION_KEYS) if (request.options[key] !== undefined) body[key] = request.options[key]
  return body as RenderStreamBody
}

/** A setting the server would silently ignore is an error, not a surprise in the output. */
function assertServerCanHonour(options: ResolvedRenderOptions): void {
  const defaults: Record<string, unknown> = RENDER_DEFAULTS
  const forwarded = new Set<string>(CLIENT_OPTION_KEYS)
  const unsupported = Object.entries(options as RenderOptionsInput)
    .filter(([key, value]) => !LOCAL_KEYS.has(key) && !forwarded.has(key) && value !== undefined && value !== defaults[key])
    .map(([key]) => flagName(key))
  if (unsupported.length > 0) {
    throw new EngineError(
      'INVALID_FLAG',
      `${unsupported.join(', ')} cannot be sent to a producer server (it decides them itself); drop ${unsupported.length === 1 ? 'it' : 'them'} or render without --server`,
      {flags: unsupported},
    )
  }
}
