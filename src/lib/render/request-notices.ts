import type {CompiledComposition} from '../compose/compile-composition.js'
import type {RequestNotice} from '../sandbox/page-requests.js'

/**
 * What the page's requests ran into, as render warnings: a missing asset compile already reported
 * (by its project path) is not told again when the page asks for it.
 */
export function requestNoticeReporter(compiled: Pick<CompiledComposition, 'notices'>, warn: (warning: {code: string; message: string}) => void): (notice: RequestNotice) => void {
  const missing = new Set(compiled.notices.flatMap((notice) => (notice.path === undefined ? [] : [notice.path])))
  return (notice) => {
    if (notice.path !== undefined) {
      if (missing.has(notice.path)) return
      missing.add(notice.path)
    }
    warn({code: notice.code, message: notice.message})
  }
}
