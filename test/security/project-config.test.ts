import {existsSync} from 'node:fs'
import {chmod, copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const SWATCH = join(REPO_ROOT, 'test/fixtures/render/swatch.html')

/**
 * An untrusted template folder whose config is code (it leaves a marker file when it runs) or
 * names a "browser" that is a script (it leaves a marker too): neither may run unless the user
 * trusts the project.
 */
describe("a project's config is data unless the user trusts the project", PROCESSES, () => {
  let base: string
  let codeProject: string
  let browserProject: string
  let userConfig: string
  const ranCode = () => existsSync(join(base, 'config-ran'))
  const ranBrowser = () => existsSync(join(base, 'browser-ran'))

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-project-config-'))
    codeProject = join(base, 'code')
    browserProject = join(base, 'browser')
    userConfig = join(base, 'user-config')
    for (const dir of [codeProject, browserProject, userConfig]) await mkdir(dir)
    for (const dir of [codeProject, browserProject]) {
      await writeFile(join(dir, 'package.json'), '{}')
      await copyFile(SWATCH, join(dir, 'swatch.html'))
    }
    await writeFile(join(codeProject, 'engine.config.mjs'), `import {writeFileSync} from 'node:fs'\nwriteFileSync(${JSON.stringify(join(base, 'config-ran'))}, 'pwned')\nexport default {fps: 5}\n`)
    await writeFile(join(browserProject, 'fake-browser.sh'), `#!/bin/sh\necho pwned > ${JSON.stringify(join(base, 'browser-ran'))}\nexit 1\n`)
    await chmod(join(browserProject, 'fake-browser.sh'), 0o755)
    await writeFile(join(browserProject, 'engine.config.json'), JSON.stringify({browserPath: './fake-browser.sh'}))
  })

  afterAll(async () => {
    await rm(base, {recursive: true, force: true})
  })

  const run = (args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) =>
    runCli(args, {cwd, env: {ENGINE_CONFIG_DIR: userConfig, ENGINE_TRUST_PROJECT_CONFIG: '', ...env}, timeoutMs: 60_000})

  it('render, still, doctor and preview refuse engine.config.mjs without running it', async () => {
    for (const args of [['render', 'swatch.html', '-o', 'out.mp4'], ['still', 'swatch.html', '-o', 'out.png'], ['doctor'], ['preview', 'swatch.html', '--no-open', '--port', '0']]) {
      const result = await run(args, codeProject)
      expect(result.code, args[0]).toBe(1)
      expect(result.stderr).toMatch(/error \[INVALID_CONFIG\]: .*engine\.config\.mjs is JavaScript, and running it would run the project's code: .*--trust-project-config/)
    }
    expect(ranCode()).toBe(false)
    expect(existsSync(join(codeProject, 'out.mp4'))).toBe(false)
  })

  it('render and doctor refuse a project config naming a browserPath, without running it', async () => {
    for (const args of [['render', 'swatch.html', '-o', 'out.mp4'], ['doctor']]) {
      const result = await run(args, browserProject)
      expect(result.code, args[0]).toBe(1)
      expect(result.stderr).toMatch(/key "browserPath" runs that program as the browser; a project's config may set it only when you trust the project/)
    }
    expect(ranBrowser()).toBe(false)
  })

  it('the user opts in with the flag, the environment or their own settings file; then the config runs', async () => {
    const flagged = await run(['render', 'swatch.html', '-o', 'flag.mp4', '--quiet', '--trust-project-config'], codeProject)
    expect(flagged.code, flagged.stderr).toBe(0)
    expect(ranCode()).toBe(true)
    await rm(join(base, 'config-ran'))
    const viaEnv = await run(['doctor'], browserProject, {ENGINE_TRUST_PROJECT_CONFIG: '1'})
    expect(viaEnv.stdout + viaEnv.stderr).toMatch(/browser/)
    expect(ranBrowser()).toBe(true)
    await writeFile(join(userConfig, 'settings.json'), '{"trustProjectConfig": true}')
    const viaSettings = await run(['still', 'swatch.html', '-o', 'settings.png'], codeProject)
    expect(viaSettings.code, viaSettings.stderr).toBe(0)
    expect(ranCode()).toBe(true)
    await rm(join(userConfig, 'settings.json'))
  })

  it('a data config still works untrusted', async () => {
    const data = join(base, 'data')
    await mkdir(data)
    await writeFile(join(data, 'package.json'), '{}')
    await copyFile(SWATCH, join(data, 'swatch.html'))
    await writeFile(join(data, 'engine.config.yaml'), 'fps: 6\nquality: draft\n')
    const result = await run(['render', 'swatch.html', '-o', 'yaml.mp4', '--quiet'], data)
    expect(result.code, result.stderr).toBe(0)
    expect(existsSync(join(data, 'yaml.mp4'))).toBe(true)
  })
})
