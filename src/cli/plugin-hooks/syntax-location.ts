import {execFile} from 'node:child_process'

/**
 * Where a syntax error is in a module: an ES module that fails to parse throws a SyntaxError with
 * no file or line in its stack, so the file is checked again with `node --check`, which prints
 * `path:line` first. Undefined when that file parses (the error is in a module it imports).
 */
export function syntaxErrorLocation(file: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--check', file], {timeout: 10_000}, (error, _stdout, stderr) => {
      if (!error) return resolve(undefined)
      const first = stderr.split('\n', 1)[0]
      resolve(/^.+:\d+$/.test(first) ? first : undefined)
    })
  })
}
