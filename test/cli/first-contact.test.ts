import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

/** What a newcomer hits in the first minutes (issue 41's small breaks), each as the CLI shows it. */
describe('first contact: the small breaks', PROCESSES, () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-first-contact-'))
    env = {ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config')}
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) => runCli(args, {cwd: dir, env: {...env, ...extra}})

  it('help of a mistyped command suggests the command, as running it does, and never shows an internal id', async () => {
    for (const args of [['rendr', '--help'], ['help', 'rendr']]) {
      const result = await cli(args)
      expect({code: result.code, stderr: result.stderr}, args.join(' ')).toEqual({code: 127, stderr: 'error [UNKNOWN_COMMAND]: "rendr" is not an engine command; did you mean `engine render`? (engine help lists them)\n'})
    }
    const lambda = await cli(['lambda', 'rendr', '--help'])
    expect(lambda.code).toBe(127)
    expect(lambda.stderr).toContain('did you mean `engine lambda render`?')
    expect(lambda.stderr).not.toContain('lambda:rendr')
  })

  it('`--version --json` is JSON; ENGINE_LOG_LEVEL that is no level is refused as --log-level is', async () => {
    const version = await cli(['--version', '--json'])
    expect(version.code).toBe(0)
    expect(JSON.parse(version.stdout)).toMatchObject({name: 'html-video-engine', version: expect.stringMatching(/^\d+\.\d+\.\d+/), node: process.version})
    expect(version.stdout.trim().split('\n')).toHaveLength(1)

    const loud = await cli(['lint', join(REPO_ROOT, 'examples', 'hello', 'index.html')], {ENGINE_LOG_LEVEL: 'loud'})
    expect({code: loud.code, stderr: loud.stderr}).toEqual({code: 1, stderr: 'error [INVALID_CONFIG]: ENGINE_LOG_LEVEL must be error, warn, info or debug, not "loud"; fix it or unset it\n'})
  })

  it('README step 1 outside a checkout: the missing example names where the package keeps it', async () => {
    const result = await cli(['render', 'examples/hello/index.html', '--quiet'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`error [COMPOSITION_NOT_FOUND]: composition: ${join(dir, 'examples', 'hello', 'index.html')} does not exist; engine's examples come with its package: \`engine render ${join(REPO_ROOT, 'examples', 'hello', 'index.html')}\``)
  })

  it('with a plugin linked: link explains a missing dependency (not oclif\'s "No lockfile found"), render --help lists its format, doctor --json is one small line', async () => {
    const link = await cli(['plugins', 'link', join(REPO_ROOT, 'examples', 'format-plugin')])
    expect(link.code, link.stderr).toBe(0)
    expect(link.stderr).not.toContain('No lockfile')
    const needy = join(dir, 'needy-plugin')
    await mkdir(needy)
    await writeFile(join(needy, 'package.json'), JSON.stringify({name: 'engine-plugin-needy', version: '1.0.0', type: 'module', oclif: {}, dependencies: {'engine-test-absent-package': '^1.0.0'}}))
    const needyLink = await cli(['plugins', 'link', needy])
    expect(needyLink.code, needyLink.stderr).toBe(0)
    expect(needyLink.stderr).not.toContain('No lockfile')
    expect(needyLink.stderr).toContain(`warning: ${needy} has no lockfile, so nothing was installed for it, and it cannot find engine-test-absent-package: run \`npm install\` in ${needy}`)

    for (const args of [['render', '--help'], ['help', 'render']]) {
      const help = await cli(args)
      expect(help.stdout, args.join(' ')).toMatch(/<options: mp4\|mov\|webm\|gif\|png-sequence\|hls\|mkv>/)
    }

    const doctor = await cli(['doctor', '--json'])
    expect(doctor.stdout.trim().split('\n')).toHaveLength(1)
    expect(doctor.stdout.length).toBeLessThan(8_000)
    const plugins = (JSON.parse(doctor.stdout) as {checks: Array<{name: string; info: {installed?: unknown[]}}>}).checks.find((check) => check.name === 'plugins')!
    expect(plugins.info.installed).toEqual(expect.arrayContaining([{name: 'engine-plugin-mkv', version: '1.0.0', type: 'link'}]))
  })
})
