import type {EnginePageApi, PageErrorRecord, ReadyReport} from '../../runtime/page-protocol.js'

export type LoadOutcome = {kind: 'loaded'; report: ReadyReport; seekError: PageErrorRecord | null} | {kind: 'superseded'} | {kind: 'failed'; message: string}

/**
 * Shows the composition at its real size, scaled to fit the stage, in an iframe driven by the
 * render runtime (`__engine.seek`). A reload (new variables, a file changed) loads a second iframe
 * behind the first and swaps them once the new one shows the current frame, so the picture never
 * flashes blank.
 */
export class CompositionView {
  private current: HTMLIFrameElement | undefined
  private width = 1
  private height = 1
  private generation = 0

  constructor(
    private readonly stage: HTMLElement,
    private readonly viewport: HTMLElement,
  ) {
    new ResizeObserver(() => this.fit()).observe(stage)
  }

  get scale(): number {
    const bounds = this.stage.getBoundingClientRect()
    return Math.max(0.01, Math.min(bounds.width / this.width, bounds.height / this.height))
  }

  setSize(width: number, height: number): void {
    this.width = width
    this.height = height
    this.fit()
  }

  /** Loads `url`, seeks it to `frame()` (read once it is ready, so playback meanwhile is honoured) and shows it. */
  async load(url: string, frame: () => number): Promise<LoadOutcome> {
    const generation = ++this.generation
    const iframe = document.createElement('iframe')
    iframe.className = 'incoming'
    iframe.title = 'Composition'
    this.size(iframe)
    const loaded = new Promise<void>((resolve) => iframe.addEventListener('load', () => resolve(), {once: true}))
    iframe.src = url
    this.viewport.append(iframe)
    const discard = (): LoadOutcome => {
      iframe.remove()
      return {kind: 'superseded'}
    }
    await loaded
    if (generation !== this.generation) return discard()
    const engine = engineOf(iframe)
    if (!engine) {
      // The server answers a composition it cannot compile (bad cue text, say) with its error as JSON.
      const refusal = serverError(iframe)
      iframe.remove()
      return {kind: 'failed', message: refusal ?? 'the composition page did not start the engine runtime (see the error above, or the browser console)'}
    }
    try {
      const report = await engine.ready()
      if (generation !== this.generation) return discard()
      const seekError = await engine.seek(frame())
      if (generation !== this.generation) return discard()
      this.current?.remove()
      this.current = iframe
      iframe.className = 'current'
      return {kind: 'loaded', report, seekError}
    } catch (error) {
      iframe.remove()
      return {kind: 'failed', message: `the engine runtime failed: ${String(error)}`}
    }
  }

  /** Whether the shown page can seek to `frame` (see EnginePageApi.canSeekTo); else load it again. */
  canSeekTo(frame: number): boolean {
    const engine = this.current && engineOf(this.current)
    return engine?.canSeekTo(frame) ?? true
  }

  /**
   * Seeks the shown composition; resolves with every page error recorded so far, so that an error
   * a timer throws is listed even after an earlier one.
   */
  async seek(frame: number): Promise<PageErrorRecord[]> {
    const engine = this.current && engineOf(this.current)
    if (!engine) return []
    await engine.seek(frame)
    return engine.errors()
  }

  private fit(): void {
    const scale = this.scale
    this.viewport.style.width = `${this.width * scale}px`
    this.viewport.style.height = `${this.height * scale}px`
    for (const iframe of this.viewport.querySelectorAll('iframe')) this.size(iframe)
  }

  private size(iframe: HTMLIFrameElement): void {
    iframe.style.width = `${this.width}px`
    iframe.style.height = `${this.height}px`
    iframe.style.transform = `scale(${this.scale})`
  }
}

function serverError(iframe: HTMLIFrameElement): string | undefined {
  try {
    const {error} = JSON.parse(iframe.contentDocument?.body?.textContent ?? '') as {error?: {code?: string; message?: string}}
    return error?.message === undefined ? undefined : `${error.code}: ${error.message}`
  } catch {
    return undefined
  }
}

function engineOf(iframe: HTMLIFrameElement): EnginePageApi | undefined {
  return (iframe.contentWindow as (Window & {__engine?: EnginePageApi}) | null)?.__engine
}
