import {execFile} from 'node:child_process'
import {existsSync, readdirSync, readFileSync} from 'node:fs'
import {copyFile, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {extractCompositionMetadata} from '../../src/lib/compose/extract-composition-metadata.js'
import {openRowSource, readRows, type SourceRow} from '../../src/lib/batch/index.js'
import {lintComposition} from '../../src/lib/lint/index.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
const GUIDES = join(REPO_ROOT, 'docs/guides')
const COMPOSITIONS_GUIDE = readFileSync(join(GUIDES, 'compositions.md'), 'utf8')
const EVERY_DOC = [README, ...readdirSync(GUIDES, {recursive: true, encoding: 'utf8'}).filter((name) => name.endsWith('.md')).map((name) => readFileSync(join(GUIDES, name), 'utf8'))]

/** The fenced code blocks of `markdown` (the README unless named) in `language`; blocks may be indented in lists. */
function codeBlocks(language: string, markdown = README): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1])
}

describe('the README and guides, as a new user would follow them', PROCESSES, () => {
  it('shows a composition example whose every clip can be visible', async () => {
    const [example] = codeBlocks('html', COMPOSITIONS_GUIDE)
    expect(example).toContain('data-composition-id="hello"')
    const dir = await mkdtemp(join(tmpdir(), 'engine-readme-'))
    try {
      await writeFile(join(dir, 'index.html'), example)
      await copyFile(join(REPO_ROOT, 'examples/hello/card.html'), join(dir, 'card.html'))
      expect(await lintComposition(join(dir, 'index.html'))).toEqual([])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })

  it('names only example files that exist in its commands', () => {
    const paths = EVERY_DOC.flatMap((markdown) => codeBlocks('(?:sh|bash)', markdown)).flatMap((block) => [...block.matchAll(/(?<![\w/.])examples\/[\w./-]+/g)].map((match) => match[0]))
    expect(paths).toContain('examples/hello/rows.csv')
    for (const path of paths) expect(existsSync(join(REPO_ROOT, path)), path).toBe(true)
  })

  it('ships one rows file, for render --batch and lambda render-batch alike, whose every row is usable and sets only declared variables', async () => {
    const composition = extractCompositionMetadata(readFileSync(join(REPO_ROOT, 'examples/hello/index.html'), 'utf8'))
    const declared = composition.variables.map((variable) => variable.id)
    const rows: SourceRow[] = []
    for await (const row of readRows(await openRowSource(join(REPO_ROOT, 'examples/hello/rows.csv')), composition.variables)) rows.push(row)
    expect(rows.length).toBeGreaterThan(1)
    for (const row of rows) {
      expect(row.problems, `line ${row.line}`).toEqual([])
      expect(declared).toEqual(expect.arrayContaining(Object.keys(row.values)))
    }
    expect(new Set(rows.map((row) => row.output)).size).toBe(rows.length)
  })

  it('gets machine-readable --json through npm the way it documents', async () => {
    const documented = EVERY_DOC.flatMap((markdown) => codeBlocks('(?:sh|bash)', markdown)).flatMap((block) => block.split('\n')).map((line) => line.trim()).filter((line) => line.startsWith('npm run') && line.includes('--json'))
    for (const line of documented) expect(line).toMatch(/^npm run --silent engine -- /)
    expect(readFileSync(join(GUIDES, 'troubleshooting.md'), 'utf8')).toContain('`npm run --silent engine -- …`')
    const {stdout} = await promisify(execFile)('npm', ['run', '--silent', 'engine', '--', 'lint', 'examples/hello/index.html', '--json'], {cwd: REPO_ROOT})
    expect(JSON.parse(stdout)).toMatchObject({file: 'examples/hello/index.html', errors: 0})
  })
})
