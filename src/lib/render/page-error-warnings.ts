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
 * script location, however many workers, pages and ranges saw it.
 */
export function pageErrorReporter(emit: (event: RenderEvent) => void): (errors: EngineError[]) => void {
  const seen = new Set<string>()
  return (errors) => {
    for (const error of errors) {
      if (seen.has(error.message)) continue
      seen.add(error.message)
      const {file, source, line, column} = (error.details ?? {}) as PageErrorLocation
      const location: PageErrorLocation = {...(file !== undefined && {file}), ...(source !== undefined && {source}), ...(line !== undefined && {line}), ...(column !== undefined && {column})}
      emit({type: 'warning', code: 'page-error', message: error.message, detail: location})
    }
  }
}
