import type {PageErrorRecord} from '../page-protocol.js'

/** Stack frame locations like `at fn (http://project.engine.localhost/index.html:12:5)` or `at https://cdn.test/x.js:3:1`. */
const STACK_LOCATION = /\(?((?:file|https?|data|blob):[^\s()]+?):(\d+):(\d+)\)?\s*$/m

/**
 * Records uncaught exceptions and unhandled rejections from the moment the runtime installs
 * (before any page script), so the render can fail with the page's own message and location.
 */
export class PageErrors {
  readonly records: PageErrorRecord[] = []
  /** Script and stylesheet URLs that failed to load, in order. */
  private readonly failedLoads: string[] = []

  install(win: Window): void {
    // Load errors of elements do not bubble; seen while capturing, they explain the errors that follow.
    win.addEventListener(
      'error',
      (event) => {
        const target = event.target as {tagName?: string; src?: string; href?: string} | null
        const url = target?.tagName === 'SCRIPT' ? target.src : target?.tagName === 'LINK' ? target.href : undefined
        if (url) this.failedLoads.push(url)
      },
      true,
    )
    win.addEventListener('error', (event) => {
      // Resource load errors (a broken <img>) do not bubble to window, so only script errors land here.
      this.push({
        kind: 'error',
        message: event.error instanceof Error ? describe(event.error) : event.message || 'Script error',
        source: event.filename || undefined,
        line: event.lineno || undefined,
        column: event.colno || undefined,
      })
    })
    win.addEventListener('unhandledrejection', (event) => {
      this.push({kind: 'unhandledrejection', message: `Unhandled promise rejection: ${describe(event.reason)}`, ...locationOf(event.reason)})
    })
  }

  /** Reports an exception the runtime caught while running a page callback, the way the browser would. */
  report(error: unknown): void {
    this.push({kind: 'error', message: describe(error), ...locationOf(error)})
  }

  private push(record: PageErrorRecord): void {
    this.records.push(this.failedLoads.length > 0 ? {...record, failedLoads: [...this.failedLoads.slice(0, 5)]} : record)
  }

  first(): PageErrorRecord | null {
    return this.records[0] ?? null
  }
}

function describe(value: unknown): string {
  if (value instanceof Error) return value.name && value.name !== 'Error' ? `${value.name}: ${value.message}` : value.message
  if (typeof value === 'string') return value
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

function locationOf(value: unknown): Pick<PageErrorRecord, 'source' | 'line' | 'column'> {
  const stack = value instanceof Error ? value.stack : undefined
  if (!stack) return {}
  const frame = stack.split('\n').slice(1).find((line) => STACK_LOCATION.test(line))
  const match = frame ? STACK_LOCATION.exec(frame) : null
  return match ? {source: match[1], line: Number(match[2]), column: Number(match[3])} : {}
}
