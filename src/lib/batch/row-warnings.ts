import type {RenderEvent} from '../render/render-events.js'
import type {RowWarning} from './batch-manifest.js'

/** Render warnings a row's manifest entry keeps: problems that did not stop the row but want a look. */
const ROW_WARNING_CODES: ReadonlySet<string> = new Set(['page-error'])

/** Collects one row's warnings from its render events, for its `warnings` in the manifest. */
export class RowWarnings {
  private readonly list: RowWarning[] = []

  see(event: RenderEvent): void {
    if (event.type !== 'warning' || !ROW_WARNING_CODES.has(event.code)) return
    this.list.push({code: event.code, message: event.message, ...(event.detail && {detail: event.detail})})
  }

  all(): RowWarning[] {
    return [...this.list]
  }
}
