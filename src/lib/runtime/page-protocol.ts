import type {TimingFinding} from '../compose/resolve-timing.js'
import type {PageFontReport} from '../fonts/page/page-fonts.js'
import type {PageMediaElement} from './runtime-media.js'
import type {ClipWindow, TextFindingRecord} from './text-check-protocol.js'

/**
 * What the Node side and the in-page runtime (`window.__engine`) exchange. Plain JSON only: every
 * value crosses the DevTools protocol by value.
 */

/** An uncaught exception or unhandled rejection seen in the page. */
export interface PageErrorRecord {
  kind: 'error' | 'unhandledrejection'
  message: string
  /** Script URL the error came from, when the browser knows it. */
  source?: string
  /** Scripts and stylesheets that had failed to load before the error (a missing library is the usual cause). */
  failedLoads?: string[]
  line?: number
  column?: number
}

/** What `__engine.ready()` is waiting for; a readiness timeout names the stage it stopped at. */
export type ReadyStage = 'load' | 'fonts' | 'images' | 'scripts' | 'holds' | 'timing' | 'ready'

export interface ReadinessState {
  stage: ReadyStage
  /** Stage detail, e.g. the URLs of images that have not decoded yet. */
  pending: string[]
}

export interface ReadyReport {
  errors: PageErrorRecord[]
  /** Clips whose `data-start` could not be resolved from the live DOM (they show from their parent's start). */
  timingFindings: TimingFinding[]
  /** Elements with clip timing the runtime shows and hides. */
  clipCount: number
  /** Served faces that failed to load, and text drawn with a fallback font. */
  fonts: PageFontReport
  /**
   * Seconds of the longest timeline registered for the root (`window.__timelines`), if any: the
   * length of a root without data-duration; `endless` when one repeats forever.
   */
  timelineSeconds?: number | 'endless'
}

/** Result of `__engine.seek(frame)`: the first page error recorded so far, if any. */
export type SeekResult = PageErrorRecord | null

/** The page API the Node side calls through `Runtime.evaluate`. */
export interface EnginePageApi {
  /**
   * The composition's variables: the declared defaults merged with the values given for this render
   * (in a sub-composition, that instance's values). Destructure with the same defaults you declared.
   */
  getVariables(): Partial<Record<string, unknown>>
  /**
   * Holds readiness until the returned function is called: `const done = __engine.hold('loading
   * data')` … `done()`. Several may be held at once; the first frame is captured once all are
   * released (within the composition's data-ready-timeout). A hold taken after the page is ready
   * holds nothing.
   */
  hold(label?: string): () => void
  /** Resolves once the page is loaded, its fonts and images decoded, start-up timers run and holds released. */
  ready(): Promise<ReadyReport>
  /** The stage readiness is at and what it still waits for (a readiness timeout names them). */
  readiness(): ReadinessState
  /** Shows frame `frame`: advances the virtual clock, seeks timelines and animations, sets clip visibility. */
  seek(frame: number): Promise<SeekResult>
  /**
   * Whether the last seek waited for newly added images or fonts. Their pixels can reach the
   * compositor a frame late, so damage tracking must not decide that such a frame is unchanged.
   */
  seekLoadedAssets(): boolean
  /**
   * Whether seeking this page to `frame` shows what a fresh page would. False when a timer due
   * after that frame has already fired: its effects cannot be undone, so the page must be loaded
   * again (renders only seek forward; the preview's scrubber goes back).
   */
  canSeekTo(frame: number): boolean
  /** The uncaught errors and unhandled rejections the page raised so far. */
  errors(): PageErrorRecord[]
  /**
   * Hides the whole document until `showLayers()`: a frame drawn in between drops every layer the
   * browser kept, so the next frame is drawn as a fresh page would draw it (see LayerReset).
   */
  hideLayers(): void
  /** Ends `hideLayers()`. */
  showLayers(): void
  /**
   * Font fallbacks and drawn families seen since the last call, and now: the page looks at its text
   * once per second of video while it is seeked, so families scripts set after it was ready are
   * checked too.
   */
  fontSamples(): PageFontReport
  /**
   * The page's `<video>`/`<audio>` elements after its scripts ran (so a script-assigned `src`
   * counts), timed as if each source without `data-duration` lasted `sourceSeconds[index]`.
   */
  mediaElements(sourceSeconds?: Record<number, number>): Promise<PageMediaElement[]>
  /** The time windows of the page's clips, once ready: when text can appear or go. */
  textClips(): Promise<ClipWindow[]>
  /**
   * Seeks each frame in turn (in order; a render's page only goes forward) and finds the text that
   * does not fit there (see findTextOverflow). An uncaught page error stops it, unless
   * `pastPageErrors` (`--page-errors warn`: the capture reports them and goes on, so does the check).
   */
  checkText(frames: number[], pastPageErrors?: boolean): Promise<TextFindingRecord[]>
}

export const ENGINE_GLOBAL = '__engine'
/** Set on clips outside their time window; the runtime's stylesheet hides them and everything inside. */
export const HIDDEN_ATTRIBUTE = 'data-engine-hidden'
/** First millisecond of virtual `Date` time: 2024-01-01T00:00:00Z. */
export const VIRTUAL_EPOCH_MS = Date.UTC(2024, 0, 1)
