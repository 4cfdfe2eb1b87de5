import type {EngineError} from '../errors/engine-error.js'
import type {RenderEvent} from './render-events.js'

/** Where a page error was thrown: the author's file and line when known, else the script URL. */
export type PageErrorLocation = {
  file?: string
  source?: string
  line?: number
  column?: number
}

/**
 * Under `--page-errors warn`: each uncaught page error becomes one `page-error` warning with its
 * script location, however many workers, pages and ranges saw it. `count` tells whether the page
 * threw at all: such an output is not stored in the render cache, whose hits replay no warnings.
 */
export class PageErrorWarnings {
  private readonly seen = new Set<string>()

  constructor(private readonly emit: (event: Extract<RenderEvent, {type: 'warning'}>) => void) {}

  get count(): number {
    return this.seen.size
  }

  readonly report = (errors: EngineError[]): void => {
    for (const error of errors) {
      if (this.seen.has(error.message)) continue
      this.seen.add(error.message)
      const {file, source, line, column} = (error.details ?? {}) as PageErrorLocation
      const location: PageErrorLocation = {...(file !== undefined && {file}), ...(source !== undefined && {source}), ...(line !== undefined && {line}), ...(column !== undefined && {column})}
      this.emit({type: 'warning', code: 'page-error', message: error.message, detail: location})
    }
  }
}
