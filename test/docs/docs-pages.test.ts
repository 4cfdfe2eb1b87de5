import {copyFileSync, existsSync, globSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {Ajv2020} from 'ajv/dist/2020.js'
import {afterAll, describe, expect, it} from 'vitest'
import {anchorsOf, brokenLinks} from '../../scripts/docs/check-links.mjs'
import {extractCompositionMetadata} from '../../src/lib/compose/extract-composition-metadata.js'
import {lintComposition, lintReport} from '../../src/lib/lint/index.js'
import {signBody} from '../../src/lib/notify/deliver-webhook.js'
import {startPreviewServer} from '../../src/lib/preview/index.js'
import {DECLARATIONS_SCHEMA_PATH} from '../../src/lib/variables/index.js'
import {REPO_ROOT} from '../support/run-cli.js'

/**
 * The docs as a reader meets them: every link lands, every guide has an example that runs, and the
 * examples marked `<!-- check: KIND -->` are checked here, in this process (the `<!-- test -->`
 * shell examples run in test/docs/examples.test.ts):
 * - `composition [folder]`: the HTML block, saved beside the folder's files and the `file` blocks
 *   before it, lints without errors, and its declarations pass the JSON Schema;
 * - `file NAME`: a file the next composition block needs;
 * - `declarations`: the `data-composition-variables` of the HTML block pass the JSON Schema;
 * - `preview`: `engine preview` of the composition the block names serves its player and state;
 * - `webhook-verifier`: the JavaScript block's `verify` accepts what engine signs and refuses the rest.
 */
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')
const DOCS = ['README.md', 'docs/README.md', 'docs/faq.md', ...globSync('docs/guides/**/*.md', {cwd: REPO_ROOT}).sort()]
const CHECKED = /<!-- check: ([\w-]+)(?: ([^>]*?))? -->\s*\n```(\w+)\n([\s\S]*?)\n```/g
const TESTED = /<!-- (?:test|check: [^>]+) -->\s*\n```/

interface Check {
  where: string
  kind: string
  argument?: string
  code: string
}

const checks: Check[] = DOCS.flatMap((file) => {
  const text = read(file)
  return [...text.matchAll(CHECKED)].map((match) => ({where: `${file}:${text.slice(0, match.index).split('\n').length}`, kind: match[1], argument: match[2], code: match[4]}))
})

const schema = JSON.parse(read(DECLARATIONS_SCHEMA_PATH)) as Record<string, unknown>
const validate = new Ajv2020({allErrors: true, strict: false}).compile(schema)
function declarationProblems(html: string): string[] {
  const raw = /data-composition-variables='([^']*)'/.exec(html)?.[1]
  if (raw === undefined) return []
  return validate(JSON.parse(raw)) ? [] : (validate.errors ?? []).filter((error) => error.keyword !== 'if').map((error) => `${error.instancePath} ${error.message}`)
}

const scratch = mkdtempSync(join(tmpdir(), 'engine-docs-checks-'))
afterAll(() => rmSync(scratch, {recursive: true, force: true}))

describe('the docs, page by page', () => {
  it('link only to files and headings that exist', () => {
    expect(brokenLinks(REPO_ROOT)).toEqual([])
  })

  it('are named by the code only where the page (and heading) exists', () => {
    const sources = ['src/**/*.ts', 'packages/lambda/src/**/*.ts'].flatMap((pattern) => globSync(pattern, {cwd: REPO_ROOT}))
    const named = sources.flatMap((file) => [...read(file).matchAll(/\bdocs\/[\w/.-]+\.md(?:#[\w-]+)?/g)].map((match) => ({file, target: match[0]})))
    expect(named.length).toBeGreaterThan(10)
    const missing = named.filter(({target}) => {
      const [path, anchor] = target.split('#')
      if (!existsSync(join(REPO_ROOT, path))) return true
      return anchor !== undefined && !anchorsOf(read(path)).has(anchor)
    })
    expect(missing).toEqual([])
  })

  it('have a map that reaches every guide', () => {
    const map = read('docs/README.md')
    const linked = new Set([...map.matchAll(/\]\((guides\/[^)#]+)/g)].map((match) => `docs/${match[1]}`))
    const guides = globSync('docs/guides/**/*.md', {cwd: REPO_ROOT})
    expect(guides.filter((guide) => !linked.has(guide)).sort()).toEqual([])
    expect(read('README.md')).toContain('](docs/README.md)')
  })

  it('give every guide at least one example that a test runs', () => {
    const topics = new Map<string, string[]>()
    for (const file of DOCS.filter((doc) => doc.startsWith('docs/guides/'))) {
      const topic = file.replace(/^docs\/guides\//, '').split('/')[0].replace(/\.md$/, '')
      topics.set(topic, [...(topics.get(topic) ?? []), file])
    }
    const untested = [...topics].filter(([, files]) => !files.some((file) => TESTED.test(read(file)))).map(([topic]) => topic)
    expect(topics.size).toBeGreaterThan(14)
    expect(untested).toEqual([])
  })

  it('take the README speed figure from docs/performance.md', () => {
    const headline = /<!-- headline -->\n?([\s\S]*?)\n?<!-- \/headline -->/.exec(read('docs/performance.md'))?.[1]
    expect(headline, 'docs/performance.md holds its headline between <!-- headline --> markers').toBeDefined()
    const flat = (text: string) => text.replace(/\s+/g, ' ')
    expect(flat(read('README.md'))).toContain(flat(headline!))
    expect(flat(read('README.md')).match(/\d+(\.\d+)?x (the speed|less CPU)/g)).toEqual(flat(headline!).match(/\d+(\.\d+)?x (the speed|less CPU)/g))
  })
})

describe('the JSON Schema of variable declarations', () => {
  it('accepts the declarations of every shipped example', () => {
    const files = globSync('examples/**/*.html', {cwd: REPO_ROOT})
    const declared = files.filter((file) => read(file).includes('data-composition-variables'))
    expect(declared.length).toBeGreaterThan(1)
    for (const file of declared) {
      expect(extractCompositionMetadata(read(file)).variables.length, file).toBeGreaterThan(0)
      expect(declarationProblems(read(file)), file).toEqual([])
    }
  })

  it('refuses what engine lint refuses, and lint names it', async () => {
    const bad = `<html data-composition-variables='[{"id": "accent", "type": "color", "label": "Accent", "default": "red"}]'><body><div data-composition-id="x" data-width="320" data-height="180" data-duration="1"></div></body></html>`
    expect(declarationProblems(bad)).toEqual(['/0/default must match pattern "^#[0-9a-fA-F]{6}$"'])
    const file = join(scratch, 'bad.html')
    writeFileSync(file, bad)
    const report = lintReport(file, await lintComposition(file))
    expect(report.findings.map((finding) => finding.code)).toEqual(['variable-default-mismatch'])
    expect(report.variablesSchema).toBe(join(REPO_ROOT, DECLARATIONS_SCHEMA_PATH))
    expect(existsSync(report.variablesSchema!)).toBe(true)
  })

  it('ships in the package', () => {
    expect(JSON.parse(read('package.json')).files).toContain(dirname(DECLARATIONS_SCHEMA_PATH))
  })
})

describe('the examples the docs mark', () => {
  it('cover compositions, declarations and the preview', () => {
    expect(new Set(checks.map((check) => check.kind))).toEqual(new Set(['composition', 'file', 'declarations', 'preview', 'webhook-verifier']))
  })

  it.each(checks.filter((check) => check.kind === 'composition' || check.kind === 'declarations').map((check) => [check.where, check] as const))(
    '%s is a valid composition',
    async (where, check) => {
      expect(declarationProblems(check.code), `${where}: declarations`).toEqual([])
      if (check.kind === 'declarations') return
      const dir = mkdtempSync(join(scratch, 'composition-'))
      if (check.argument) for (const name of readdirSync(join(REPO_ROOT, check.argument))) copyFileSync(join(REPO_ROOT, check.argument, name), join(dir, name))
      const index = checks.indexOf(check)
      for (let before = index - 1; before >= 0 && checks[before].kind === 'file' && checks[before].where.split(':')[0] === where.split(':')[0]; before--) {
        writeFileSync(join(dir, basename(checks[before].argument!)), checks[before].code + '\n')
      }
      writeFileSync(join(dir, 'index.html'), check.code)
      const errors = (await lintComposition(join(dir, 'index.html'))).filter((finding) => finding.severity === 'error')
      expect(errors, where).toEqual([])
    },
  )

  it.each(checks.filter((check) => check.kind === 'preview').map((check) => [check.where, check] as const))('%s serves the player', {timeout: 60_000}, async (where, check) => {
    const composition = /engine preview (\S+)/.exec(check.code)?.[1]
    expect(composition, where).toBeDefined()
    const server = await startPreviewServer({composition: join(REPO_ROOT, composition!), port: 0})
    try {
      const page = await fetch(server.url)
      expect(page.status).toBe(200)
      const state = (await (await fetch(new URL('/__preview/state', server.url))).json()) as {composition: {declarations: {id: string}[]}}
      const declared = extractCompositionMetadata(read(composition!)).variables.map((variable) => variable.id)
      expect(state.composition.declarations.map((declaration) => declaration.id)).toEqual(declared)
    } finally {
      await server.close()
    }
  })

  it.each(checks.filter((check) => check.kind === 'webhook-verifier').map((check) => [check.where, check] as const))('%s verifies what engine signs', async (where, check) => {
    const module = join(scratch, `verifier-${checks.indexOf(check)}.mjs`)
    writeFileSync(module, `${check.code}\nexport {verify}\n`)
    const {verify} = (await import(module)) as {verify: (body: Buffer, headers: Record<string, string>, secret: string) => boolean}
    const body = Buffer.from(JSON.stringify({type: 'render.completed', row: {index: 3, data: {customer_id: 'c-7'}}}))
    const now = Math.floor(Date.now() / 1000)
    const headers = (timestamp: number, signed = body) => ({'x-engine-timestamp': String(timestamp), 'x-engine-signature': signBody(signed.toString('utf8'), 'docs-secret', timestamp)})
    expect(verify(body, headers(now), 'docs-secret'), where).toBe(true)
    expect(verify(body, headers(now), 'another-secret'), `${where}: another secret`).toBe(false)
    expect(verify(body, headers(now, Buffer.from('{"type":"render.failed"}')), 'docs-secret'), `${where}: another body`).toBe(false)
    expect(verify(body, headers(now - 600), 'docs-secret'), `${where}: a call replayed 10 minutes later`).toBe(false)
  })
})
