import {spawn} from 'node:child_process'
import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {writePlugin} from '../support/write-plugin.js'

const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')

/** Like runCli, with the signal that ended the process. */
function runWithSignal(args: string[], env: NodeJS.ProcessEnv): Promise<{code: number | null; signal: NodeJS.Signals | null; stderr: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), ...args], {cwd: REPO_ROOT, env: {...process.env, ...env}, stdio: ['ignore', 'ignore', 'pipe']})
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({code, signal, stderr})
    })
  })
}

// A hook that never yields blocks the thread every timer and signal handler needs.
describe('a plugin hook stuck in a synchronous loop (2 s hook timeout)', {timeout: 120_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-sync-loop-'))
    env = {NODE_ENV: undefined, ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), ENGINE_PLUGIN_TIMEOUT: '2'}
    const plugin = await writePlugin(dir, 'engine-plugin-spins', {'engine:formats': 'export default () => { for (;;) {} }\n'})
    const linked = await runCli(['plugins', 'link', plugin, '--no-install'], {env})
    expect(linked.code, linked.stderr).toBe(0)
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('ends the command after the timeout and a grace, naming the plugin and the way out, which works', async () => {
    const stuck = await runWithSignal(['lint', COLOR], env)
    // Ended by engine's own watchdog, which says so (the test's 60 s bound kills silently).
    expect(stuck.signal).toBe('SIGKILL')
    expect(stuck.stderr).toMatch(/error \[PLUGIN_FAILED\]: plugin engine-plugin-spins: its engine:formats hook \(\.\/engine-formats\.js\) kept engine busy without ever yielding .*`engine plugins unlink engine-plugin-spins`/)

    expect(await runCli(['lint', COLOR], {env: {...env, ENGINE_NO_PLUGINS: '1'}})).toMatchObject({code: 0})
    expect((await runCli(['plugins', 'unlink', 'engine-plugin-spins'], {env})).code).toBe(0)
    expect(await runCli(['lint', COLOR], {env})).toMatchObject({code: 0, stderr: ''})
  })
})
