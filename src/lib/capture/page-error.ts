import {VENDOR_DOCS} from '../compose/find-unloadable-resources.js'
import {sourceLineOf} from '../compose/script-line-map.js'
import {EngineError} from '../errors/engine-error.js'
import type {RenderPlan} from '../plan/render-plan.js'
import type {PageErrorRecord} from '../runtime/page-protocol.js'

/**
 * The render failure for an error the composition threw: the page's own message and where it
 * happened, with URLs under the composition's directory shown relative to it, and a line of the
 * compiled page taken back to the file and line it was written on.
 */
export function pageError(record: PageErrorRecord, plan: Pick<RenderPlan, 'baseUrl' | 'scriptLines'>, documentName: string): EngineError {
  const inDocument = record.source === new URL(documentName, plan.baseUrl).href && record.line !== undefined
  const written = inDocument ? sourceLineOf(plan.scriptLines ?? [], record.line!) : undefined
  const file = written?.file ?? (record.source?.startsWith(plan.baseUrl) ? decodeURIComponent(record.source.slice(plan.baseUrl.length)) : record.source)
  const line = written?.line ?? record.line
  const where = file ? ` (at ${file}${line ? `:${line}` : ''})` : ''
  const unloaded = record.failedLoads?.length
    ? `; before it, the page could not load ${record.failedLoads.join(', ')}: a missing library is the usual cause; vendor the file into the project (see ${VENDOR_DOCS}), and \`engine lint\` lists such files`
    : ''
  return new EngineError('PAGE_ERROR', `${record.message}${where}${unloaded}`, {...record, ...(written ? {file: written.file, line: written.line} : {})})
}
