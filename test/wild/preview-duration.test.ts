import {copyFile} from 'node:fs/promises'
import {join} from 'node:path'
import puppeteer, {type Browser} from 'puppeteer-core'
import {afterAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {ensurePreviewClient} from '../preview/support/ensure-preview-client.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {page, SLOW, useProject} from './support.js'

const BROWSER = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

describe('engine preview of a root without data-duration', SLOW, () => {
  const project = useProject()
  let server: PreviewServer | undefined
  let browser: Browser | undefined
  afterAll(async () => {
    await browser?.close()
    await server?.close()
  })

  it('takes the length of its registered timeline once the page is loaded', async () => {
    await Promise.all([ensureRuntimeBundle(), ensurePreviewClient()])
    await copyFile(join(REPO_ROOT, 'node_modules/gsap/dist/gsap.min.js'), join(project.dir(), 'gsap.min.js'))
    const composition = await project.write(
      'index.html',
      page(`<div id="box"></div><script src="gsap.min.js"></script><script>
  const tl = gsap.timeline({paused: true}).to('#box', {x: 100, duration: 1.5})
  window.__timelines = {main: tl}
</script>`, {attributes: ''}),
    )
    server = await startPreviewServer({composition, port: 0, fps: {num: 30, den: 1}})
    browser = await puppeteer.launch({executablePath: BROWSER, headless: 'shell', args: ['--no-sandbox']})
    const tab = await browser.newPage()
    await tab.goto(server.url)
    await tab.waitForSelector('body[data-state="ready"]')
    expect(await tab.$eval('#last-frame', (element) => element.textContent)).toBe('44')
    expect(await tab.$eval('#composition-size', (element) => element.textContent)).toBe('320×180, 1.5 s at 30 fps')
  })
})
