// The page runtime reference: what `window.__engine` exposes (read with the TypeScript compiler
// from the EnginePageApi interface in src/lib/runtime/page-protocol.ts, so a new member cannot
// ship undocumented) and which browser globals the runtime replaces before any page script runs
// (found in the runtime's install code; the generator fails on one it does not know).
import {globSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import ts from 'typescript'
import {createProgram} from './api-reference.mjs'
import {code, generatedHeader, table} from './markdown.mjs'

const PROTOCOL = 'src/lib/runtime/page-protocol.ts'
const RUNTIME_SOURCES = 'src/lib/runtime/page/*.ts'

/** Members a composition's own scripts may call: covered by semver (see docs/compatibility.md). */
const FOR_COMPOSITIONS = new Set(['getVariables', 'hold'])

/** What each replaced global becomes in the page; keyed as the install code names it. */
const GLOBALS = {
  Date: '`new Date()` and `Date()` read the virtual clock, which starts at 2024-01-01T00:00:00Z and advances to frame i / fps.',
  'Date.now': 'Milliseconds of the virtual clock since the Unix epoch (2024-01-01T00:00:00Z at frame 0).',
  'performance.now': 'Milliseconds of composition time (0 at frame 0).',
  setTimeout: 'Runs on the virtual clock: fires when a seek reaches its due time.',
  setInterval: 'Runs on the virtual clock: fires every time a seek passes another period.',
  clearTimeout: 'Cancels a virtual timer.',
  clearInterval: 'Cancels a virtual interval.',
  requestAnimationFrame: 'Called once per seek, with the composition time in milliseconds.',
  cancelAnimationFrame: 'Cancels a frame callback.',
  requestIdleCallback: 'Runs as a 0 ms virtual timer.',
  cancelIdleCallback: 'Cancels it.',
  'Math.random': 'Seeded per frame (from the render seed and the frame number): every worker draws the same numbers.',
  'crypto.getRandomValues': 'Seeded like `Math.random`.',
  'crypto.randomUUID': 'Seeded like `Math.random` (a version 4 UUID).',
  gsap: 'When GSAP installs itself, the runtime pauses its global timeline and seeks it each frame, so plain `gsap.to()` tweens follow the virtual clock.',
  __timelines: 'Register a GSAP timeline (created paused) as `window.__timelines[compositionId] = tl`; the runtime seeks it each frame. Without a root `data-duration`, the longest root timeline sets the length.',
  __engine: 'The runtime itself (read-only), documented above.',
}

function members(root) {
  const file = join(root, PROTOCOL)
  const program = createProgram(root, [file])
  const checker = program.getTypeChecker()
  const source = program.getSourceFile(file)
  const api = source.statements.find((statement) => ts.isInterfaceDeclaration(statement) && statement.name.text === 'EnginePageApi')
  if (!api) throw new Error(`${PROTOCOL}: interface EnginePageApi not found`)
  return api.members.map((member) => {
    const name = member.name.getText(source)
    const symbol = checker.getSymbolAtLocation(member.name)
    const doc = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim().replace(/\s*\n\s*/g, ' ')
    const signature = member.getText(source).replace(/\/\*\*[\s\S]*?\*\/\s*/g, '').replace(/\s+/g, ' ')
    if (!doc) throw new Error(`${PROTOCOL}: EnginePageApi.${name} needs a doc comment (docs/reference/runtime-api.md shows it)`)
    return {name, doc, signature}
  })
}

/** Globals the runtime's install code assigns or redefines, by the names GLOBALS uses. */
function replacedGlobals(root) {
  const found = new Set()
  for (const file of globSync(RUNTIME_SOURCES, {cwd: root})) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of text.matchAll(/\bwin\.((?:Math\.|performance\.)?\w+) = /g)) found.add(match[1])
    for (const match of text.matchAll(/defineProperty\((win|crypto|window), (?:'(\w+)'|(ENGINE_GLOBAL))/g)) {
      found.add(match[1] === 'crypto' ? `crypto.${match[2]}` : (match[2] ?? '__engine'))
    }
    for (const match of text.matchAll(/^\s+(now): \{value:/gm)) found.add(`Date.${match[1]}`)
  }
  const unknown = [...found].filter((name) => !(name in GLOBALS))
  if (unknown.length > 0) throw new Error(`scripts/docs/runtime-reference.mjs: describe ${unknown.join(', ')} in GLOBALS`)
  const gone = Object.keys(GLOBALS).filter((name) => !found.has(name))
  if (gone.length > 0) throw new Error(`scripts/docs/runtime-reference.mjs: the runtime no longer replaces ${gone.join(', ')}; remove it from GLOBALS`)
  return Object.keys(GLOBALS)
}

export function runtimeReference(root) {
  const all = members(root)
  const row = (member) => [code(member.signature), member.doc]
  const authors = all.filter((member) => FOR_COMPOSITIONS.has(member.name))
  const internal = all.filter((member) => !FOR_COMPOSITIONS.has(member.name))
  const text = [
    generatedHeader('Page runtime API (`window.__engine`)', `the EnginePageApi interface in ${PROTOCOL} and the runtime's install code in src/lib/runtime/page/`),
    'Before any script of a composition runs, engine installs its runtime into the page: `window.__engine` (also reachable as `__engine`), ' +
      'a virtual clock and seeded randomness. Read it from a classic `<script>`, not a module script, so that the runtime is already there. ' +
      'In a sub-composition, `__engine` answers for that instance. How to use it: [reading values](../guides/compositions/variables.md), ' +
      '[waiting for the page\'s own work](../guides/compositions/waiting.md).',
    '',
    '## For compositions',
    '',
    'These are the members a composition\'s scripts call. They are covered by the [compatibility policy](../compatibility.md).',
    '',
    table(['Member', 'What it does'], authors.map(row)),
    '',
    '```js',
    "const {title = 'Hello'} = __engine.getVariables()   // declared defaults merged with the values given",
    "const done = __engine.hold('loading data')        // the first frame waits until done() is called",
    "fetch('data.json').then((response) => response.json()).then(draw).finally(done)",
    '```',
    '',
    '## Called by the renderer',
    '',
    'The renderer and the preview drive the page through these. They are listed so that nothing on `__engine` is a mystery; a composition should not call them, and they may change in any release.',
    '',
    table(['Member', 'What it does'], internal.map(row)),
    '',
    '## Globals the runtime replaces',
    '',
    'Every frame `i` shows the page at `t = i / fps`, reached by seeking. These globals are replaced so that time, timers and randomness follow that seek, the same on every worker:',
    '',
    table(['Global', 'In a composition'], replacedGlobals(root).map((name) => [code(name), GLOBALS[name]])),
    '',
  ]
  return new Map([['runtime-api.md', text.join('\n')]])
}
