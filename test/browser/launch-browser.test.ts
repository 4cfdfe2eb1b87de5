import {describe, expect, it} from 'vitest'
import {BEGIN_FRAME_FLAGS, browserArgs, closeBrowser, launchBrowser} from '../../src/lib/browser/index.js'
import {SANDBOX_FLAGS, serverlessBrowserArgs} from '../../src/lib/browser/launch-browser.js'
import type {BrowserChoice} from '../../src/lib/browser/index.js'
import {EngineError} from '../../src/lib/errors/engine-error.js'
import {until} from '../support/until.js'
import {PROCESSES} from '../support/timeouts.js'

const shell: BrowserChoice = {
  executablePath: process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell',
  source: 'system-headless-shell',
  beginFrame: true,
  gpu: false,
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function gone(pid: number): Promise<boolean> {
  return until(() => !isRunning(pid))
}

describe('browser flags', PROCESSES, () => {
  it('adds begin-frame control only for begin-frame browsers and disables the GPU unless asked for', () => {
    const args = browserArgs(shell, false)
    expect(args).toEqual(expect.arrayContaining([...BEGIN_FRAME_FLAGS, '--disable-gpu', '--force-device-scale-factor=1', '--font-render-hinting=none', '--hide-scrollbars', '--mute-audio']))
    expect(args).not.toContain('--no-sandbox')
    const chrome = browserArgs({...shell, source: 'system-chrome', beginFrame: false, gpu: true}, true)
    expect(chrome).not.toContain('--enable-begin-frame-control')
    expect(chrome).not.toContain('--disable-gpu')
    expect(chrome).toContain('--no-sandbox')
  })

  it('gives every browser the sandbox flags and never file access', () => {
    for (const args of [browserArgs(shell, false), browserArgs({...shell, source: 'sparticuz', serverlessArgs: ['--disable-features=AudioServiceOutOfProcess', '--allow-file-access-from-files']}, false)]) {
      expect(args).toEqual(expect.arrayContaining(SANDBOX_FLAGS.filter((flag) => !flag.startsWith('--disable-features='))))
      expect(args).not.toContain('--allow-file-access-from-files')
      // Chromium reads only the last --disable-features: one list carries every feature.
      const features = args.filter((arg) => arg.startsWith('--disable-features='))
      expect(features).toHaveLength(1)
      expect(features[0].split('=')[1].split(',')).toEqual(expect.arrayContaining(['IsolateOrigins', 'site-per-process']))
    }
    const serverless = browserArgs({...shell, source: 'sparticuz', serverlessArgs: serverlessBrowserArgs(['--disable-features=AudioServiceOutOfProcess', '--allow-file-access-from-files', '--proxy-server=x'])}, false)
    expect(serverless.find((arg) => arg.startsWith('--disable-features='))).toContain('AudioServiceOutOfProcess')
    expect(serverless).not.toContain('--proxy-server=x')
  })

  it('serverless Chromium: its own arguments merged with the begin-frame flags, minus those that weaken the page', () => {
    const sparticuz = ['--single-process', '--no-zygote', '--in-process-gpu', '--use-angle=swiftshader', '--disable-web-security', '--allow-running-insecure-content', '--disable-site-isolation-trials', "--headless='shell'", '--no-sandbox', '--font-render-hinting=none']
    const serverlessArgs = serverlessBrowserArgs(sparticuz)
    // Site isolation stays off (the sandbox adds that itself, so that frames of every origin are intercepted).
    expect(serverlessArgs).toEqual(['--single-process', '--no-zygote', '--in-process-gpu', '--use-angle=swiftshader', '--disable-site-isolation-trials', '--no-sandbox', '--font-render-hinting=none'])
    const args = browserArgs({...shell, source: 'sparticuz', serverlessArgs}, false)
    expect(args).toEqual(expect.arrayContaining([...serverlessArgs, ...BEGIN_FRAME_FLAGS]))
    // SwiftShader is its software GL: the GPU is not switched off on top, and no flag appears twice.
    expect(args).not.toContain('--disable-gpu')
    expect(new Set(args).size).toBe(args.length)
  })
})

describe('launchBrowser', PROCESSES, () => {
  it('closes the process it started', async () => {
    const browser = await launchBrowser(shell)
    const pid = browser.process()!.pid!
    expect(await browser.version()).toMatch(/Chrome\/\d+/)
    await closeBrowser(browser)
    expect(await gone(pid)).toBe(true)
  })

  it('kills the process when the render is cancelled', async () => {
    const controller = new AbortController()
    const browser = await launchBrowser(shell, {signal: controller.signal})
    const pid = browser.process()!.pid!
    controller.abort(new EngineError('CANCELLED', 'cancelled by the test'))
    expect(await gone(pid)).toBe(true)
    await closeBrowser(browser)
  })

  it('reports a browser that cannot start with the path and the fix', async () => {
    const error = await launchBrowser({...shell, executablePath: '/bin/false'}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(EngineError)
    expect((error as EngineError).code).toBe('BROWSER_FAILED')
    expect((error as EngineError).message).toContain('/bin/false')
    expect((error as EngineError).message).toContain('--browser-path')
  })
})
