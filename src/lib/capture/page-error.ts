import {EngineError} from '../errors/engine-error.js'
import type {PageErrorRecord} from '../runtime/page-protocol.js'

/**
 * The render failure for an error the composition threw: the page's own message and where it
 * happened, with URLs under the composition's directory shown relative to it.
 */
export function pageError(record: PageErrorRecord, baseUrl: string): EngineError {
  const file = record.source?.startsWith(baseUrl) ? decodeURIComponent(record.source.slice(baseUrl.length)) : record.source
  const where = file ? ` (at ${file}${record.line ? `:${record.line}` : ''})` : ''
  return new EngineError('PAGE_ERROR', `${record.message}${where}`, record)
}
