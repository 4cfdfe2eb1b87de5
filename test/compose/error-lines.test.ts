import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const ROOT = 'data-composition-id="main" data-width="320" data-height="180" data-duration="1"'

/** A top-level page whose lines the compiled page does not keep: whitespace before <head>, and a sub-composition inlined above the script. */
function topLevel(script: string): string {
  return [
    '<!doctype html>',
    '',
    '<html>',
    '',
    '<head>',
    '</head>',
    '<body>',
    `  <div id="root" ${ROOT}>`,
    '    <div data-composition-src="scenes/card.html" data-start="0" data-duration="1"></div>',
    '  </div>',
    '  <script>',
    '    var ready = true;',
    script,
    '  </script>',
    '</body>',
    '</html>',
  ].join('\n')
}

function card(script: string): string {
  return [
    '<!doctype html>',
    '<html>',
    '<body>',
    '  <div data-composition-id="card" data-width="320" data-height="180" data-duration="1">',
    '    <p>one</p>',
    '    <p>two</p>',
    '    <p>three</p>',
    '  </div>',
    '  <script>',
    script,
    '  </script>',
    '</body>',
    '</html>',
  ].join('\n')
}

let dir: string

async function renderError(page: string, sub: string): Promise<string> {
  const project = await mkdtemp(join(dir, 'project-'))
  await mkdir(join(project, 'scenes'))
  await writeFile(join(project, 'index.html'), page)
  await writeFile(join(project, 'scenes', 'card.html'), sub)
  const output = join(project, 'out.mp4')
  const result = await runCli(['render', join(project, 'index.html'), '-o', output])
  expect(result.code).toBe(1)
  expect(existsSync(output)).toBe(false)
  return result.stderr
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'engine-error-lines-'))
})

describe('page errors point at the line the author wrote', PROCESSES, () => {
  it('in the top-level file, below an inlined sub-composition', async () => {
    const stderr = await renderError(topLevel('    throw new Error("top-level failure");'), card('    var fine = 1;'))
    expect(stderr).toContain('error [PAGE_ERROR]: top-level failure (at index.html:13)')
  })

  it('in a sub-composition file, by its path and its own line, also when a timer throws later', async () => {
    const stderr = await renderError(topLevel('    var also = 2;'), card('    setTimeout(function () {\n      throw new Error("card failure");\n    }, 300);'))
    expect(stderr).toContain('error [PAGE_ERROR]: card failure (at scenes/card.html:11)')
  })
})
