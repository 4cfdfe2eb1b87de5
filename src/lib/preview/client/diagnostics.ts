import type {LintFinding} from '../../lint/lint-codes.js'
import type {PageErrorRecord} from '../../runtime/page-protocol.js'

/** Lint findings of the composition as it is on disk, one line each, like `engine lint` prints them. */
export function showLintFindings(list: HTMLElement, findings: LintFinding[]): void {
  list.replaceChildren(
    ...(findings.length === 0
      ? [item('none', 'No problems found')]
      : findings.map((finding) => {
          const line = item(`finding ${finding.severity}`, '')
          line.append(
            span('severity', finding.severity),
            code(finding.code),
            document.createTextNode(` ${finding.message}`),
            span('where', finding.line === undefined ? finding.file : `${finding.file}:${finding.line}`),
          )
          return line
        })),
  )
}

/** Uncaught errors of the composition's scripts; a render would stop on the first one. */
export function showPageErrors(list: HTMLElement, errors: PageErrorRecord[]): void {
  list.replaceChildren(
    ...errors.map((error) => {
      const line = item('finding error', '')
      const where = error.source ? `${error.source.split('/').pop()}${error.line === undefined ? '' : `:${error.line}`}` : ''
      line.append(span('severity', 'page error'), document.createTextNode(` ${error.message}`), span('where', where))
      return line
    }),
  )
}

function item(className: string, text: string): HTMLLIElement {
  const node = document.createElement('li')
  node.className = className
  node.textContent = text
  return node
}

function span(className: string, text: string): HTMLSpanElement {
  const node = document.createElement('span')
  node.className = className
  node.textContent = text
  return node
}

function code(text: string): HTMLElement {
  const node = document.createElement('code')
  node.textContent = text
  return node
}
