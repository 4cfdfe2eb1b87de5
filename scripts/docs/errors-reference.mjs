// The error-code reference, from ERROR_DOCS (src/lib/errors/error-docs.ts): every code, when it
// happens, how to fix it, and the HTTP status `engine serve` answers it with.
import {readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {pathToFileURL} from 'node:url'
import {code, generatedHeader, table} from './markdown.mjs'

/** The guide that carries the same table between these markers (kept in step by the generator). */
export const TROUBLESHOOTING = 'docs/guides/troubleshooting.md'
const START = '<!-- generated: error codes (npm run docs:reference) -->'
const END = '<!-- end of generated error codes -->'

export async function errorsReference(root) {
  const dist = (path) => import(pathToFileURL(join(root, 'dist/src/lib', path)).href)
  const {ERROR_DOCS} = await dist('errors/error-docs.js')
  const {httpStatus} = await dist('server/http-errors.js')
  const codes = Object.keys(ERROR_DOCS).sort()
  const guide = readFileSync(join(root, TROUBLESHOOTING), 'utf8')
  const from = guide.indexOf(START)
  const to = guide.indexOf(END)
  if (from < 0 || to < from) throw new Error(`${TROUBLESHOOTING} must hold the markers ${START} and ${END}`)
  const guideTable = table(['Code', 'Cause', 'Fix'], codes.map((name) => [code(name), ERROR_DOCS[name].cause, ERROR_DOCS[name].fix]))
  const troubleshooting = `${guide.slice(0, from)}${START}\n\n${guideTable}\n\n${guide.slice(to)}`
  const text = [
    generatedHeader('Error codes', 'ERROR_DOCS in src/lib/errors/error-docs.ts'),
    'Every failure of engine, on the command line, from `engine serve`, from the SDK and on Lambda, carries one of these codes. ' +
      'The CLI prints `error [CODE]: message` (or one JSON object `{"error": {code, message, details}}` with `--json`) and exits non-zero; ' +
      '`engine serve` answers `{"error": {code, message, details}}` with the HTTP status below; the SDK throws an `EngineError` with `code`, `message` and `details`. ' +
      'The message always names the flag, field or file at fault.',
    '',
    table(['Code', 'HTTP', 'Cause', 'Fix'], codes.map((name) => [`<a id="${name.toLowerCase()}"></a>${code(name)}`, String(httpStatus(name)), ERROR_DOCS[name].cause, ERROR_DOCS[name].fix])),
    '',
  ]
  return new Map([
    ['errors.md', text.join('\n')],
    [relative(join(root, 'docs/reference'), join(root, TROUBLESHOOTING)), troubleshooting],
  ])
}
