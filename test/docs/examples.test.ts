import {spawnSync} from 'node:child_process'
import {chmodSync, globSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {delimiter, join} from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {REPO_ROOT} from '../support/run-cli.js'

/**
 * The shell examples of README.md and docs/guides/ marked `<!-- test -->` run as written, from the
 * repository root, with `engine` on PATH as an installed package puts it there.
 */
const MARKED_BLOCK = /<!-- test -->\s*\n```sh\n([\s\S]*?)\n```/g

interface Example {
  file: string
  line: number
  script: string
}

function markedExamples(): Example[] {
  const files = ['README.md', ...globSync('docs/**/*.md', {cwd: REPO_ROOT}).sort()]
  return files.flatMap((file) => {
    const text = readFileSync(join(REPO_ROOT, file), 'utf8')
    return [...text.matchAll(MARKED_BLOCK)].map((match) => ({file, line: text.slice(0, match.index).split('\n').length, script: match[1]}))
  })
}

const bin = mkdtempSync(join(tmpdir(), 'engine-docs-bin-'))
writeFileSync(join(bin, 'engine'), `#!/bin/sh\nexec "${process.execPath}" "${join(REPO_ROOT, 'bin', 'run.js')}" "$@"\n`)
chmodSync(join(bin, 'engine'), 0o755)
afterAll(() => rmSync(bin, {recursive: true, force: true}))

const examples = markedExamples()

describe('marked shell examples of the docs', () => {
  it('the tutorial and the guides have marked examples', () => {
    expect(examples.length).toBeGreaterThan(5)
    expect(examples.some((example) => example.file === 'docs/guides/getting-started.md')).toBe(true)
  })

  it.each(examples.map((example) => [`${example.file}:${example.line}`, example] as const))('%s runs as written', {timeout: 300_000}, (_where, example) => {
    const result = spawnSync('bash', ['-euo', 'pipefail', '-c', example.script], {
      cwd: REPO_ROOT,
      env: {...process.env, PATH: [bin, join(REPO_ROOT, 'node_modules', '.bin'), process.env.PATH].join(delimiter)},
      encoding: 'utf8',
      timeout: 280_000,
    })
    expect(result.status, `${example.file}:${example.line} failed:\n${example.script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`).toBe(0)
  })
})
