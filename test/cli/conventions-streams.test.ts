import {execFile} from 'node:child_process'
import {mkdir, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'

const exec = promisify(execFile)
const BIN = join(REPO_ROOT, 'bin', 'run.js')
const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')
const userEnv = {NODE_ENV: undefined}

/** Runs a shell line under a pseudo-terminal (`script`), as a person at a terminal does; its output is what the terminal showed. */
async function inTerminal(line: string, env: NodeJS.ProcessEnv = {}): Promise<string> {
  const {stdout} = await exec('script', ['-qec', line, '/dev/null'], {cwd: REPO_ROOT, env: {...process.env, ...userEnv, ...env}, timeout: 120_000})
  return stdout.replaceAll('\r\n', '\n')
}

const engine = `${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)}`

// Several engine processes per test, two short renders. (That serve and preview exit 130 on Ctrl-C is
// asserted where their help examples run: test/cli/help-examples.test.ts.)
describe('CLI conventions: suggestions, streams, log levels, signals', {timeout: 180_000}, () => {
  const scratch = useScratchDir('engine-conventions-streams-')

  it('a mistyped command is named with the command line it meant, by its command words, in any mode; exit 127', async () => {
    const piped = await runCli(['rendr', 'x.html'], {env: userEnv})
    expect(piped).toMatchObject({
      code: 127,
      stdout: '',
      stderr: 'error [UNKNOWN_COMMAND]: "rendr" is not an engine command; did you mean `engine render x.html`? (engine help lists them)\n',
    })
    // A companion's commands (packages/lambda, a development plugin in this checkout) too.
    expect((await runCli(['lamda', 'render', 'site'], {env: userEnv})).stderr).toMatch(/"lamda render" is not an engine command; did you mean `engine lambda render site`\?/)
    expect((await runCli(['docker', 'biuld'], {env: userEnv})).stderr).toMatch(/"docker biuld" is not an engine command; did you mean `engine docker build`\?/)
    expect((await runCli(['xyzzy'], {env: userEnv})).stderr).toBe('error [UNKNOWN_COMMAND]: "xyzzy" is not an engine command; engine help lists them\n')
    const json = await runCli(['rendr', 'x.html', '--json'], {env: userEnv})
    expect(json.code).toBe(127)
    expect(JSON.parse(json.stdout)).toMatchObject({type: 'error', error: {code: 'UNKNOWN_COMMAND', details: {command: 'rendr', suggestion: 'render'}}})

    // At a terminal: the same line, no prompt to wait on.
    const terminal = await inTerminal(`${engine} rendr x.html; echo "exit $?"`)
    expect(terminal).toMatch(/error \[UNKNOWN_COMMAND\]: "rendr" is not an engine command; did you mean `engine render x\.html`\?.*\nexit 127\n/)
  })

  it('a mistyped flag names the flag it likely meant', async () => {
    expect(await runCli(['render', COLOR, '--fsp', '30'], {env: userEnv})).toMatchObject({
      code: 2,
      stderr: 'error [INVALID_FLAG]: --fsp is not a flag of this command (did you mean --fps?): see engine render --help\n',
    })
    expect((await runCli(['render', COLOR, '--qualty', 'high'], {env: userEnv})).stderr).toMatch(/--qualty is not a flag of this command \(did you mean --quality\?\)/)
  })

  it('a reader that stops reading (| head) ends engine quietly with status 0', async () => {
    const {stdout} = await exec('bash', ['-c', `${engine} render --help 2>"$1" | head -c 10 >/dev/null; echo "\${PIPESTATUS[0]}"`, 'bash', join(scratch(), 'epipe.err')], {env: {...process.env, ...userEnv}})
    expect(stdout).toBe('0\n')
    expect(await readFile(join(scratch(), 'epipe.err'), 'utf8')).toBe('')
  })

  it('progress goes to stderr, the result to stdout: piped, and at a terminal with stdout redirected', async () => {
    const output = join(scratch(), 'piped.mp4')
    const piped = await runCli(['render', COLOR, '--frames', '0-3', '-o', output], {env: userEnv})
    expect(piped.code, piped.stderr).toBe(0)
    expect(piped.stdout).toMatch(/^\S*piped\.mp4: 4 frames, [^\n]*\n$/)
    expect(piped.stderr).toMatch(/frame 4\/4/)

    const resultFile = join(scratch(), 'result.txt')
    const terminal = await inTerminal(`${engine} render ${COLOR} --frames 0-3 -o ${join(scratch(), 'tty.mp4')} > ${resultFile}`)
    expect(terminal).toMatch(/frame 4\/4/)
    expect(await readFile(resultFile, 'utf8')).toMatch(/^\S*tty\.mp4: 4 frames, [^\n]*\n$/)
  })

  it('--log-level (and ENGINE_LOG_LEVEL, --verbose) decides which diagnostics reach stderr', async () => {
    // A linked plugin whose hook throws warns on every command.
    const plugin = join(scratch(), 'engine-plugin-warns')
    await mkdir(plugin, {recursive: true})
    await writeFile(join(plugin, 'package.json'), JSON.stringify({name: 'engine-plugin-warns', version: '1.0.0', type: 'module', oclif: {hooks: {'engine:formats': './f.js'}}}))
    await writeFile(join(plugin, 'f.js'), "export default () => { throw new Error('no formats today') }\n")
    const env = {...userEnv, ENGINE_DATA_DIR: join(scratch(), 'data'), ENGINE_CONFIG_DIR: join(scratch(), 'config')}
    expect((await runCli(['plugins', 'link', plugin, '--no-install'], {env})).code).toBe(0)

    const normal = await runCli(['lint', COLOR], {env})
    expect(normal.stderr).toMatch(/^warning: plugin engine-plugin-warns: its engine:formats hook \(\.\/f\.js\) failed at \S+f\.js:1:\d+: no formats today; its formats are not available\n$/)
    expect(normal.stdout).toMatch(/no problems found/)
    for (const quiet of [['--log-level', 'error'], ['--log-level=error']]) expect((await runCli(['lint', COLOR, ...quiet], {env})).stderr).toBe('')
    expect((await runCli(['lint', COLOR], {env: {...env, ENGINE_LOG_LEVEL: 'error'}})).stderr).toBe('')
    const verbose = await runCli(['lint', COLOR, '--verbose'], {env})
    expect(verbose.stderr).toMatch(/no formats today[^\n]*\n {2}Error: no formats today\n {6}at /)

    // Progress is info: --log-level warn leaves it out, the result stays.
    const render = await runCli(['render', COLOR, '--frames', '0-1', '-o', join(scratch(), 'warn.mp4'), '--log-level', 'warn'], {env: userEnv})
    expect(render).toMatchObject({code: 0, stderr: ''})
    expect(render.stdout).toMatch(/warn\.mp4: 2 frames/)
    expect((await runCli(['lint', COLOR, '--log-level', 'loud'])).stderr).toMatch(/--log-level must be error, warn, info or debug, not "loud"/)
    // oclif's own commands take them too.
    for (const args of [['plugins', '--log-level', 'error'], ['help', 'render', '--verbose'], ['plugins', '--log-level=debug', '--core']]) {
      const result = await runCli(args, {env})
      expect(result.code, args.join(' ')).toBe(0)
      expect(result.stderr).not.toMatch(/Nonexistent flag/)
    }
  })
})
