import {existsSync, globSync, readdirSync, readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ENVIRONMENT} from '../../scripts/docs/config-reference.mjs'
import {generateReference, REFERENCE_DIR} from '../../scripts/docs/reference.mjs'
import {REPO_ROOT} from '../support/run-cli.js'

const REGENERATE = 'run `npm run build && npm run docs:reference` and commit docs/reference/'

describe('docs/reference and the error table of the troubleshooting guide (generated from the code)', () => {
  // Generating runs the CLI's help of every command: about 6 s on a quiet machine, 122 s measured on
  // a loaded one. The bound is for a machine far slower still; it says nothing about speed.
  it('matches what the code generates now, page for page', {timeout: 600_000}, async () => {
    const expected = await generateReference(REPO_ROOT)
    const dir = join(REPO_ROOT, REFERENCE_DIR)
    const onDisk = readdirSync(dir, {recursive: true, withFileTypes: true})
      .filter((entry) => entry.isFile())
      .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    const stale = [...expected].filter(([path, text]) => !existsSync(join(dir, path)) || readFileSync(join(dir, path), 'utf8') !== text).map(([path]) => path)
    const extra = onDisk.filter((path) => !expected.has(path))
    expect({stale, extra}, `docs/reference is out of date: ${REGENERATE}`).toEqual({stale: [], extra: []})
  })

  it('documents only environment variables the source still reads', () => {
    const source = ['src/**/*.ts', 'packages/*/src/**/*.ts'].flatMap((pattern) => globSync(pattern, {cwd: REPO_ROOT})).map((file) => readFileSync(join(REPO_ROOT, file), 'utf8')).join('\n')
    const gone = Object.keys(ENVIRONMENT).filter((name) => !source.includes(name))
    expect(gone, 'remove them from ENVIRONMENT in scripts/docs/config-reference.mjs').toEqual([])
  })
})
