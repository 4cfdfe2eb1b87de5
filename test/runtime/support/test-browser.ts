import type {BrowserChoice} from '../../../src/lib/browser/browser-choice.js'

const executablePath = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

/** The headless shell every capture test uses, with begin-frame capture unless asked otherwise. */
export function testBrowser(beginFrame = true): BrowserChoice {
  return {executablePath, source: 'system-headless-shell', beginFrame, gpu: false}
}
