import {chmod, mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {dirname, join} from 'node:path'
import {computeExecutablePath, detectBrowserPlatform} from '@puppeteer/browsers'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {installPinnedBrowser, PINNED_BROWSER, resolveBrowser} from '../../src/lib/browser/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'

const headlessShell = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

async function failure(promise: Promise<unknown>): Promise<EngineError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(EngineError)
  return error as EngineError
}

async function fakeExecutable(path: string): Promise<string> {
  await mkdir(dirname(path), {recursive: true})
  await writeFile(path, '#!/bin/sh\nexit 0\n')
  await chmod(path, 0o755)
  return path
}

describe('resolveBrowser', () => {
  let cache: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    cache = await mkdtemp(join(tmpdir(), 'engine-browser-test-'))
    env = {ENGINE_CACHE_DIR: cache, PATH: ''}
  })
  afterAll(() => rm(cache, {recursive: true, force: true}))

  it('prefers an explicit path, probing it for version and begin-frame support', async () => {
    const choice = await resolveBrowser({browserPath: headlessShell, env: {...env, ENGINE_BROWSER_PATH: '/nowhere/chrome'}})
    expect(choice).toMatchObject({executablePath: headlessShell, source: 'flag', beginFrame: true, gpu: false})
    expect(choice.version).toMatch(/Chrome\/\d+/)
    const probes = JSON.parse(await readFile(join(cache, 'probes', 'browser.json'), 'utf8'))
    expect(probes[headlessShell].facts).toMatchObject({beginFrame: true})
  })

  it('reports where an explicit path came from', async () => {
    expect(await resolveBrowser({browserPath: headlessShell, browserPathSource: 'config', env})).toMatchObject({source: 'config'})
    expect(await resolveBrowser({env: {...env, ENGINE_BROWSER_PATH: headlessShell}, browserGpu: true})).toMatchObject({source: 'env', gpu: true})
  })

  it('names the flag and the value when an explicit path is not an executable', async () => {
    const error = await failure(resolveBrowser({browserPath: '/nowhere/chrome', env}))
    expect(error.code).toBe('BROWSER_NOT_FOUND')
    expect(error.message).toContain('--browser-path: "/nowhere/chrome" is not an executable file')
    const fromEnv = await failure(resolveBrowser({env: {...env, ENGINE_BROWSER_PATH: cache}}))
    expect(fromEnv.message).toContain(`ENGINE_BROWSER_PATH: "${cache}"`)
  })

  it('uses the pinned build from the engine cache before the system browser', async () => {
    const pinnedCache = await mkdtemp(join(tmpdir(), 'engine-pinned-test-'))
    try {
      const path = computeExecutablePath({...PINNED_BROWSER, platform: detectBrowserPlatform()!, cacheDir: join(pinnedCache, 'browsers')})
      await fakeExecutable(path)
      expect(await resolveBrowser({env: {ENGINE_CACHE_DIR: pinnedCache, PATH: ''}})).toEqual({executablePath: path, source: 'pinned', beginFrame: true, gpu: false})
    } finally {
      await rm(pinnedCache, {recursive: true, force: true})
    }
  })

  it('falls back to the system headless shell, then to a Chrome on PATH with screenshot capture', async () => {
    expect(await resolveBrowser({env, systemHeadlessShell: headlessShell})).toEqual({
      executablePath: headlessShell,
      source: 'system-headless-shell',
      beginFrame: true,
      gpu: false,
    })
    const bin = join(cache, 'bin')
    const chromium = await fakeExecutable(join(bin, 'chromium'))
    expect(await resolveBrowser({env: {...env, PATH: bin}, systemHeadlessShell: '/nowhere/shell'})).toEqual({
      executablePath: chromium,
      source: 'system-chrome',
      beginFrame: false,
      gpu: false,
    })
  })

  it('says exactly how to get a browser when there is none', async () => {
    const error = await failure(resolveBrowser({env, systemHeadlessShell: '/nowhere/shell'}))
    expect(error.code).toBe('BROWSER_NOT_FOUND')
    expect(error.message).toContain('apt-get install -y chromium-headless-shell')
    expect(error.message).toContain('engine doctor --fix')
    expect(error.message).toContain(`chrome-headless-shell ${PINNED_BROWSER.buildId}`)
    expect(error.message).toContain('--browser-path')
  })
})

describe('installPinnedBrowser', () => {
  it('fails cleanly, with the offline alternatives, when the download is unreachable', async () => {
    const cache = await mkdtemp(join(tmpdir(), 'engine-install-test-'))
    try {
      const error = await failure(installPinnedBrowser({env: {ENGINE_CACHE_DIR: cache}, baseUrl: 'http://127.0.0.1:9/'}))
      expect(error.code).toBe('BROWSER_FAILED')
      expect(error.message).toContain(`could not download chrome-headless-shell ${PINNED_BROWSER.buildId}`)
      expect(error.message).toContain('apt-get install -y chromium-headless-shell')
      expect(error.message).toContain('--browser-path')
    } finally {
      await rm(cache, {recursive: true, force: true})
    }
  })
})
