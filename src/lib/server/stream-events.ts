import type {ErrorCode} from '../errors/engine-error.js'
import type {RenderEvent, RenderStage} from '../render/render-events.js'
import type {CompanionFileUrl} from './output-urls.js'

/** The render's own `start` event minus the paths of the server's files (composition and output). */
export type StreamStartEvent = Omit<Extract<RenderEvent, {type: 'start'}>, 'composition' | 'output'> & {requestId: string}

/**
 * The events of `POST /render/stream`, one JSON object per server-sent event. A request that
 * has to wait gets `queued` (again whenever its position changes), then `started`, `start` (what
 * is rendered, once compiled), `progress` and `warning` while it renders, and ends with exactly one
 * `complete` or `error`. Repeated warnings of one code are summarised (`count`) before the end.
 */
export type StreamEvent =
  | {type: 'queued'; requestId: string; position: number}
  | {type: 'started'; requestId: string}
  | StreamStartEvent
  | {
      type: 'progress'
      requestId: string
      stage: RenderStage
      frame: number
      /** 0 until the composition has been compiled and the frame count is known. */
      totalFrames: number
      framesPerSecond?: number
      etaSeconds?: number | null
    }
  | {type: 'warning'; requestId: string; code: string; message: string; count?: number; level?: 'info'}
  | {
      type: 'complete'
      requestId: string
      /** Path of `GET /render/:requestId/output`, relative to the server's address. */
      outputUrl: string
      /** Path of `GET /render/:requestId/poster` when the request asked for a poster, else null. */
      posterUrl: string | null
      format: string
      bytes: number
      /** Seconds of video. */
      duration: number
      totalFrames: number
      /** Transfer of an HDR output, null for SDR. */
      hdr: 'pq' | 'hlg' | null
      /** Time from the request's arrival (queue wait included) to its completion. */
      renderMs: number
      /** The render's own phases, queue wait excluded. */
      timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
      /** Remote http(s) URLs the render loaded. */
      fetchedUrls: string[]
      /** The output came from the render cache (an identical render done before): nothing was captured. */
      cached: boolean
      /** The files served beside the output (an HLS playlist's segments), which `bytes` counts too; only for such formats. */
      companionFiles?: CompanionFileUrl[]
    }
  | {type: 'error'; requestId: string; code: ErrorCode; message: string; details?: unknown}

export type StreamEventType = StreamEvent['type']
