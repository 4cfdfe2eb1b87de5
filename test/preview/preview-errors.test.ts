import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import puppeteer, {type Browser} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {ensurePreviewClient} from './support/ensure-preview-client.js'
import {PROCESSES} from '../support/timeouts.js'

const BROWSER = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

// An error while the page loads, and one a timer throws half a second in: a render stops on the
// first; the preview lists both, the second once the player passes its time.
const COMPOSITION = `<!doctype html><html><body>
<div data-composition-id="main" data-width="320" data-height="180" data-duration="2"></div>
<script>
  setTimeout(() => { throw new Error('the timer exploded') }, 500)
  throw new Error('the load exploded')
</script></body></html>`

describe('engine preview lists page errors', PROCESSES, () => {
  let directory: string
  let server: PreviewServer
  let browser: Browser

  beforeAll(async () => {
    await Promise.all([ensureRuntimeBundle(), ensurePreviewClient()])
    directory = await mkdtemp(join(tmpdir(), 'engine-preview-errors-'))
    await writeFile(join(directory, 'index.html'), COMPOSITION)
    server = await startPreviewServer({composition: join(directory, 'index.html'), port: 0, fps: {num: 30, den: 1}})
    browser = await puppeteer.launch({executablePath: BROWSER, headless: 'shell', args: ['--no-sandbox']})
  })
  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  it('from timers too, after an earlier error', async () => {
    const page = await browser.newPage()
    await page.goto(server.url)
    await page.waitForSelector('body[data-state="ready"]')
    const listed = () => page.$$eval('#page-errors li', (items) => items.map((item) => item.textContent ?? ''))
    expect(await listed()).toEqual([expect.stringContaining('the load exploded')])
    await page.$eval('#scrubber', (input) => {
      ;(input as HTMLInputElement).value = '30'
      input.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await page.waitForSelector('body[data-frame="30"]')
    await page.waitForFunction(() => document.querySelectorAll('#page-errors li').length === 2, {timeout: 10_000})
    expect(await listed()).toEqual([expect.stringContaining('the load exploded'), expect.stringContaining('the timer exploded')])
  })
})
