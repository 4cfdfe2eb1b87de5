import {existsSync} from 'node:fs'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {writePlugin} from '../support/write-plugin.js'

const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')


/** An image-stream format whose assemble has a bug (reads a property of undefined). */
const THROWING_ASSEMBLE = `export default async () => [{
  name: 'boom', description: 'a format with a bug', alpha: false, audio: 'none', evenDimensions: false,
  rateControl: false, gpu: false, worker: 'image-stream', extension: '.boom', requiredEncoders: () => [],
  async assemble(context) {
    const missing = undefined
    return missing.output
  },
}]
`

const BROKEN: Record<string, Record<string, string>> = {
  // A hook whose promise never settles, on oclif's own init event and on the engine's.
  // Its init hook leaves a mark (in ENGINE_TEST_MARK) when it runs.
  'engine-plugin-hang': {
    init: "import {writeFileSync} from 'node:fs'\nexport default () => { writeFileSync(process.env.ENGINE_TEST_MARK, 'ran'); return new Promise(() => {}) }\n",
    'engine:formats': 'export default () => new Promise(() => {})\n',
  },
  // A hook that answers but leaves a timer holding the process.
  'engine-plugin-handle': {'engine:formats': 'export default () => { setInterval(() => {}, 1000); return [] }\n'},
  'engine-plugin-nodefault': {'engine:formats': 'export const formats = 1\n'},
  'engine-plugin-syntax': {'engine:formats': 'export default () => {\n  return [\n}\n'},
  'engine-plugin-throws': {'engine:formats': THROWING_ASSEMBLE},
}

// Many engine processes; each command with broken plugins waits out the (shortened) hook timeout.
describe('plugins cannot brick the CLI (private ENGINE_DATA_DIR, 2 s hook timeout)', {timeout: 240_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, {env: {...env, ...extra}, timeoutMs: 60_000})

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-containment-'))
    env = {
      NODE_ENV: undefined,
      ENGINE_DATA_DIR: join(dir, 'data'),
      ENGINE_CONFIG_DIR: join(dir, 'config'),
      XDG_DATA_HOME: join(dir, 'xdg-data'),
      XDG_CONFIG_HOME: join(dir, 'xdg-config'),
      ENGINE_PLUGIN_TIMEOUT: '2',
      ENGINE_TEST_MARK: join(dir, 'hook-ran'),
    }
    for (const [name, hooks] of Object.entries(BROKEN)) {
      const linked = await cli(['plugins', 'link', await writePlugin(dir, name, hooks), '--no-install'])
      expect(linked.code, linked.stderr).toBe(0)
    }
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('the version, the top help, plugins and doctor --safe run no plugin code: no hook ran, no warning', async () => {
    for (const args of [['-v'], ['--help'], ['plugins'], ['doctor', '--safe', '--json']]) {
      const result = await cli(args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expect(result.stderr, args.join(' ')).not.toMatch(/plugin/)
      expect(existsSync(env.ENGINE_TEST_MARK!), args.join(' ')).toBe(false)
    }
    const safe = JSON.parse((await cli(['doctor', '--safe', '--json'])).stdout) as {checks: {name: string; summary: string}[]}
    expect(safe.checks.find((check) => check.name === 'plugins')?.summary).toMatch(/^not run \(--safe\): .*engine-plugin-hang 1\.0\.0 \(link\)/)
  })

  it("a format command's help lists the plugins' formats: broken plugins are contained there too, it ends and still lists the built-in formats", async () => {
    for (const args of [['help', 'render'], ['render', '--help']]) {
      const result = await cli(args)
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(0)
      expect(result.stdout, args.join(' ')).toMatch(/mp4/)
      expect(result.stderr, args.join(' ')).toMatch(/^warning: plugin engine-plugin-hang: .*no answer within 2 s/m)
    }
  })

  it('any other command finishes, each broken plugin named in one line with the place and the cause', async () => {
    // The hangs time out, then the process ends although a timer is still held (runCli kills it after 60 s: no exit code).
    const lint = await cli(['lint', COLOR])
    expect(lint.code, lint.stderr).toBe(0)
    expect(lint.stdout).toMatch(/no problems found/)
    expect(existsSync(env.ENGINE_TEST_MARK!)).toBe(true)
    const lines = lint.stderr.trimEnd().split('\n')
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^warning: plugin engine-plugin-hang: its init hook \(\.\/init\.js\) failed: no answer within 2 s \(ENGINE_PLUGIN_TIMEOUT=<seconds> waits longer\)$/),
        expect.stringMatching(/^warning: plugin engine-plugin-hang: its engine:formats hook \(\.\/engine-formats\.js\) failed: no answer within 2 s .*; its formats are not available$/),
        expect.stringMatching(/^warning: plugin engine-plugin-nodefault: .*engine-plugin-nodefault\/engine-formats\.js has no default export to call \(it exports formats\): export the hook function as default; its formats are not available$/),
        expect.stringMatching(/^warning: plugin engine-plugin-syntax: loading its engine:formats hook \(\.\/engine-formats\.js\) failed at .*engine-plugin-syntax\/engine-formats\.js:3: SyntaxError: Unexpected token '}'; its formats are not available$/),
      ]),
    )
    expect(lines).toHaveLength(4)

    const debug = await cli(['lint', COLOR, '--log-level', 'debug'])
    expect(debug.stderr).toMatch(/engine-plugin-nodefault[\s\S]*\n {2}\S*Error/)
  })

  it("an error in a plugin format's assemble is PLUGIN_FAILED naming the plugin, the method and the line; nothing is left at the output", async () => {
    const output = join(dir, 'out.boom')
    const render = await cli(['render', COLOR, '--format', 'boom', '--frames', '0-5', '-o', output, '--quiet'], {ENGINE_PLUGIN_TIMEOUT: '0.5'})
    expect(render.code).toBe(1)
    expect(render.stderr).toMatch(
      /(?:^|\n)error \[PLUGIN_FAILED\]: plugin engine-plugin-throws: format "boom" assemble failed at \S*engine-plugin-throws\/engine-formats\.js:6:\d+: TypeError: Cannot read properties of undefined \(reading 'output'\)\n$/,
    )
    expect(existsSync(output)).toBe(false)
  })

  it('doctor names the failing plugins with the command that removes each; ENGINE_NO_PLUGINS=1 loads none', async () => {
    const doctor = JSON.parse((await cli(['doctor', '--json'])).stdout) as {checks: {name: string; status: string; fix?: string}[]}
    const plugins = doctor.checks.find((check) => check.name === 'plugins')
    expect(plugins?.status).toBe('warning')
    expect(plugins?.fix).toMatch(/engine plugins unlink engine-plugin-hang/)
    expect(plugins?.fix).toMatch(/ENGINE_NO_PLUGINS=1/)

    const none = await cli(['lint', COLOR], {ENGINE_NO_PLUGINS: '1'})
    expect(none).toMatchObject({code: 0, stderr: ''})
    const render = await cli(['render', '--help'], {ENGINE_NO_PLUGINS: '1'})
    expect(render.stdout).not.toMatch(/boom/)
  })

  it('plugins unlink removes a plugin that hangs, and then commands are quiet', async () => {
    for (const name of Object.keys(BROKEN)) {
      const result = await cli(['plugins', 'unlink', name])
      expect(result.code, result.stderr).toBe(0)
    }
    expect(await cli(['lint', COLOR])).toMatchObject({code: 0, stderr: ''})
  })
})
