import type {ProtocolMapping} from 'devtools-protocol/types/protocol-mapping.js'
import type {Browser, CDPSession} from 'puppeteer-core'
import {abortReason} from '../browser/abort-reason.js'
import {killBrowser} from '../browser/launch-browser.js'
import {EngineError} from '../errors/engine-error.js'

type Commands = ProtocolMapping.Commands

export interface CallLimit {
  timeoutMs: number
  /** The error a timeout becomes; it should say what was being waited for. */
  onTimeout: () => EngineError | Promise<EngineError>
}

/**
 * A DevTools session to the page that never hangs silently: every call also ends when the page
 * crashes, the browser exits, the caller cancels, or its own time limit passes, each with an
 * EngineError that says which.
 */
export class PageConnection {
  private readonly failure: Promise<never>
  private rejectFailure!: (error: EngineError) => void
  private failed: EngineError | undefined
  private readonly onAbort = () => this.abort()
  private readonly onDisconnect = () =>
    this.fail(new EngineError('BROWSER_FAILED', 'the browser exited unexpectedly during capture (out of memory, or killed?)'))

  constructor(
    readonly browser: Browser,
    readonly session: CDPSession,
    private readonly signal?: AbortSignal,
  ) {
    this.failure = new Promise<never>((_, reject) => {
      this.rejectFailure = reject
    })
    this.failure.catch(() => {})
    session.on('Inspector.targetCrashed', () =>
      this.fail(new EngineError('BROWSER_FAILED', 'the page crashed during capture (the renderer process died; out of memory?)')),
    )
    browser.on('disconnected', this.onDisconnect)
    signal?.addEventListener('abort', this.onAbort, {once: true})
    if (signal?.aborted) this.abort()
  }

  /** The first failure (crash, exit, cancellation), if any. */
  get error(): EngineError | undefined {
    return this.failed
  }

  async send<T extends keyof Commands>(method: T, params?: Commands[T]['paramsType'][0], limit?: CallLimit): Promise<Commands[T]['returnType']> {
    if (this.failed) throw this.failed
    let timer: NodeJS.Timeout | undefined
    const racers: Promise<Commands[T]['returnType']>[] = [this.session.send(method, params), this.failure]
    if (limit) {
      racers.push(
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            Promise.resolve(limit.onTimeout()).then(reject, reject)
          }, limit.timeoutMs)
        }),
      )
    }
    try {
      return await Promise.race(racers)
    } catch (error) {
      // A call that failed because the browser went away reports why it went away.
      throw this.failed ?? error
    } finally {
      clearTimeout(timer)
    }
  }

  /** Stops listening; the browser itself is closed by its owner. */
  dispose(): void {
    this.browser.off('disconnected', this.onDisconnect)
    this.signal?.removeEventListener('abort', this.onAbort)
  }

  private abort(): void {
    this.fail(abortReason(this.signal!))
    killBrowser(this.browser)
  }

  private fail(error: EngineError): void {
    if (this.failed) return
    this.failed = error
    this.rejectFailure(error)
  }
}
