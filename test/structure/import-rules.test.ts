import {execFile} from 'node:child_process'
import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'
import {afterEach, describe, expect, it} from 'vitest'
import {PROCESSES} from '../support/timeouts.js'

const run = promisify(execFile)
const root = join(import.meta.dirname, '../..')
const depcruise = join(root, 'node_modules/.bin/depcruise')
const config = join(root, '.dependency-cruiser.cjs')

/** Runs the project's rules over a small tree of modules; returns the exit code and the report. */
async function check(files: Record<string, string>): Promise<{code: number; output: string}> {
  const dir = await mkdtemp(join(tmpdir(), 'engine-imports-'))
  temporary.push(dir)
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({compilerOptions: {module: 'NodeNext', moduleResolution: 'NodeNext', strict: true}}))
  await mkdir(join(dir, 'plugins'))
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), {recursive: true})
    await writeFile(join(dir, path), text)
  }
  try {
    const {stdout} = await run(depcruise, ['src', 'plugins', '--config', config, '--output-type', 'err'], {cwd: dir})
    return {code: 0, output: stdout}
  } catch (error) {
    const failed = error as {code: number; stdout: string; stderr: string}
    return {code: failed.code, output: failed.stdout + failed.stderr}
  }
}

const temporary: string[] = []
afterEach(async () => {
  await Promise.all(temporary.splice(0).map((dir) => rm(dir, {recursive: true, force: true})))
})

// The project itself is checked by `npm run check-imports`, which `npm test` runs before vitest (src, plugins and
// packages/lambda/src): these tests show the rules catch what they are for.
describe('import rules (npm run check-imports)', PROCESSES, () => {
  it('accept a downward import between stages', async () => {
    const result = await check({
      'src/lib/render/render.ts': "import {encode} from '../encode/encode.js'\nexport const render = encode\n",
      'src/lib/encode/encode.ts': 'export const encode = 1\n',
      'plugins/formats/gif.ts': "export type {X} from '../../src/plugin/index.js'\n",
      'src/plugin/index.ts': "export type {X} from '../lib/encode/types.js'\n",
      'src/lib/encode/types.ts': 'export type X = number\n',
    })
    expect(result.output).toMatch(/no dependency violations/)
    expect(result.code).toBe(0)
  })

  it('fail on an upward import between stage folders, type-only included', async () => {
    const result = await check({
      'src/lib/render/render.ts': 'export type Render = number\n',
      'src/lib/encode/encode.ts': "import type {Render} from '../render/render.js'\nexport const encode: Render = 1\n",
    })
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/no-upward-import-from-stages: src\/lib\/encode\/encode\.ts → src\/lib\/render\/render\.ts/)
  })

  it('fail on an import cycle inside one folder', async () => {
    const result = await check({
      'src/lib/encode/a.ts': "import {b} from './b.js'\nexport const a = () => b\n",
      'src/lib/encode/b.ts': "import {a} from './a.js'\nexport const b = () => a\n",
    })
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/no-cycles/)
  })

  it('fail when the core imports a built-in plugin, or a plugin reaches past the plugin API', async () => {
    const result = await check({
      'src/lib/encode/registry.ts': "import {gif} from '../../../plugins/formats/gif.js'\nexport const all = [gif]\n",
      'plugins/formats/gif.ts': "import {x} from '../../src/lib/encode/x.js'\nexport const gif = x\n",
      'src/lib/encode/x.ts': 'export const x = 1\n',
    })
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/core-does-not-import-plugins: src\/lib\/encode\/registry\.ts → plugins\/formats\/gif\.ts/)
    expect(result.output).toMatch(/plugins-use-the-plugin-api: plugins\/formats\/gif\.ts → src\/lib\/encode\/x\.ts/)
  })

  it('fail on a folder no layer names, so that new code cannot slip past the layers', async () => {
    const result = await check({
      'src/lib/teleport/beam.ts': "import {encode} from '../encode/encode.js'\nexport const beam = encode\n",
      'src/lib/encode/encode.ts': 'export const encode = 1\n',
    })
    expect(result.code).not.toBe(0)
    expect(result.output).toMatch(/folder-has-a-layer: src\/lib\/teleport\/beam\.ts/)
  })
})
