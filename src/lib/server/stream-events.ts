import type {ErrorCode} from '../errors/engine-error.js'
import type {RenderStage} from '../render/render-events.js'

/**
 * The events of `POST /render/stream`, one JSON object per server-sent event. A request that
 * has to wait gets `queued` (again whenever its position changes), then `started`, `progress`
 * and `warning` while it renders, and ends with exactly one `complete` or `error`.
 */
export type StreamEvent =
  | {type: 'queued'; requestId: string; position: number}
  | {type: 'started'; requestId: string}
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
  | {type: 'warning'; requestId: string; code: string; message: string}
  | {
      type: 'complete'
      requestId: string
      /** Path of `GET /render/:requestId/output`, relative to the server's address. */
      outputUrl: string
      format: string
      bytes: number
      /** Seconds of video. */
      duration: number
      totalFrames: number
      /** Time from the request's arrival (queue wait included) to its completion. */
      renderMs: number
      /** The render's own phases, queue wait excluded. */
      timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
    }
  | {type: 'error'; requestId: string; code: ErrorCode; message: string; details?: unknown}

export type StreamEventType = StreamEvent['type']
