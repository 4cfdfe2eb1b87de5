import {mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Browser, Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {ensurePreviewClient} from './support/ensure-preview-client.js'
import {openPlayer} from './support/open-player.js'
import {PROCESSES} from '../support/timeouts.js'

const FIT = join(import.meta.dirname, '../text-check/fixtures/fit.html')

describe('engine preview shows data-fit="shrink" live', PROCESSES, () => {
  let directory: string
  let server: PreviewServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    await Promise.all([ensureRuntimeBundle(), ensurePreviewClient()])
    directory = await mkdtemp(join(tmpdir(), 'engine-preview-fit-'))
    const composition = join(directory, 'fit.html')
    // A default headline far too long for its 200 px box at the author's 40 px.
    await writeFile(composition, (await readFile(FIT, 'utf8')).replace('"default": "Fits"', '"default": "Wolfeschlegelsteinhausen-Bergdorff"'))
    server = await startPreviewServer({composition, port: 0, fps: {num: 10, den: 1}})
    ;({browser, page} = await openPlayer(server.url))
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  /** The headline's font size in the composition frame the player shows. */
  async function headlineSize(): Promise<number> {
    const frame = page.frames().find((candidate) => candidate !== page.mainFrame() && candidate.url().includes('fit.html'))
    expect(frame, 'the composition frame').toBeDefined()
    return frame!.$eval('#headline', (element) => parseFloat(getComputedStyle(element).fontSize))
  }

  it('shrinks the long headline, and gives a short one its author size back when the value changes', async () => {
    const shrunk = await headlineSize()
    expect(shrunk).toBeLessThan(40)
    expect(shrunk).toBeGreaterThanOrEqual(8)
    const id = await page.$$eval('label[for]', (labels) => labels.find((node) => node.textContent === 'Headline')?.htmlFor)
    await page.$eval(`#${id}`, (input) => {
      ;(input as HTMLInputElement).value = 'Hi'
      input.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await page.waitForFunction(() => document.body.dataset.state === 'ready' && JSON.parse(document.body.dataset.shownVariables ?? '{}').headline === 'Hi')
    expect(await headlineSize()).toBe(40)
  })
})
