import type {ErrorJson} from '../errors/engine-error.js'

export type RenderStage = 'compile' | 'launch' | 'capture' | 'assemble' | 'done'

/**
 * What a render reports while it runs; `--json` prints one per line, the server relays them as
 * server-sent events, and the progress display draws them.
 */
export type RenderEvent =
  | {
      type: 'start'
      composition: string
      output: string
      format: string
      width: number
      height: number
      fps: string
      /** Where the rate came from: an option (`flag`: --fps, config file, request, SDK), the root's `data-fps` (`composition`), or the `default` 30. */
      fpsSource: 'flag' | 'composition' | 'default'
      /** Frames of the output: the whole composition, or the `--frames` range. */
      totalFrames: number
      /** Composition frame the output starts with (`--frames A-B`: A; otherwise 0). */
      firstFrame: number
      durationSeconds: number
      workers: number
      quality: string
      browser: {executablePath: string; source: string; beginFrame: boolean}
      ffmpeg: {path: string; version: string}
      variables: Record<string, unknown>
    }
  | {type: 'stage'; stage: RenderStage}
  | {type: 'progress'; stage: RenderStage; frame: number; totalFrames: number; framesPerSecond: number; etaSeconds: number | null}
  /** `level: 'info'` marks a notice (a font drawn on purpose with its stand-in), not a problem. */
  | {type: 'warning'; code: string; message: string; level?: 'info'; /** `page-error`: where it was thrown ({file, line, column} or the script URL). */ detail?: Record<string, unknown>}
  | {
      type: 'done'
      output: string
      bytes: number
      totalFrames: number
      durationSeconds: number
      framesPerSecond: number
      /** Transfer of an HDR output (H.265 10-bit BT.2020), null for SDR. */
      hdr: 'pq' | 'hlg' | null
      /** The poster image written beside the output (`--poster`), null without one. */
      poster?: string | null
      /** Remote http(s) URLs the page and its media loaded (each fetched once, through the download cache). */
      fetchedUrls: string[]
      timings: {compileMs: number; captureMs: number; assembleMs: number; totalMs: number}
      /** Present (true) when the output came from the render cache: nothing was captured or encoded. */
      cached?: true
    }
  | {type: 'error'; error: ErrorJson}

export type RenderEventListener = (event: RenderEvent) => void
