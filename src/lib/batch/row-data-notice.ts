import type {PreflightResult} from './preflight.js'

/** A name as the terminal may safely show it: quoted, with control characters (C0, DEL, C1) written as \uXXXX. */
export function quoteName(name: string): string {
  const shown = name.length > 80 ? `${name.slice(0, 80)}…` : name
  return `"${shown.replace(/[\u0000-\u001f\u007f-\u009f"\\]/g, (character) => (character === '"' || character === '\\' ? `\\${character}` : `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`))}"`
}

/**
 * The one line a batch prints about its row data: the columns no variable declares are kept beside
 * each row (output names, events, webhooks, the result sheet) and never reach the page. Undefined
 * when the rows have none.
 */
export function rowDataNotice(checked: Pick<PreflightResult, 'dataColumns' | 'dataColumnCount'>): {code: 'row-data'; level: 'info'; message: string} | undefined {
  if (checked.dataColumnCount === 0) return undefined
  const more = checked.dataColumnCount - checked.dataColumns.length
  const names = checked.dataColumns.map(quoteName).join(', ') + (more > 0 ? ` and ${more}${more + checked.dataColumns.length >= 1000 ? ' or more' : ''} more` : '')
  const plural = checked.dataColumnCount === 1
  return {
    code: 'row-data',
    level: 'info',
    message: `${plural ? 'column' : 'columns'} ${names} ${plural ? 'is' : 'are'} not ${plural ? 'a declared variable' : 'declared variables'}: kept as row data ({placeholders} of --output, the result sheet, --json events and webhooks), never sent to the page`,
  }
}
