import {copyFile, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Browser, Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {decodeRgba, near, pixel} from '../runtime/support/decode-image.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {ensurePreviewClient} from './support/ensure-preview-client.js'
import {openPlayer} from './support/open-player.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURE = join(import.meta.dirname, '../fixtures/preview/all-types.html')
const RED = [255, 0, 0]
const BLUE = [0, 0, 255]
const GREEN = [0, 255, 0]
const BLACK = [0, 0, 0]
const WHITE = [255, 255, 255]

describe('engine preview: the player page in a real browser', PROCESSES, () => {
  let directory: string
  let composition: string
  let server: PreviewServer
  let browser: Browser
  let page: Page
  const pageErrors: string[] = []

  beforeAll(async () => {
    await Promise.all([ensureRuntimeBundle(), ensurePreviewClient()])
    directory = await mkdtemp(join(tmpdir(), 'engine-preview-'))
    composition = join(directory, 'all-types.html')
    await copyFile(FIXTURE, composition)
    server = await startPreviewServer({composition, port: 0, fps: {num: 30, den: 1}})
    ;({browser, page} = await openPlayer(server.url, (opened) => {
      opened.on('pageerror', (error) => pageErrors.push(String(error)))
      opened.on('console', (message) => {
        if (message.type() === 'error') pageErrors.push(message.text())
      })
    }))
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  /** Colour of composition pixel (x, y) as the page shows it, scaled to fit. */
  async function compositionPixel(x: number, y: number): Promise<number[]> {
    const box = await page.$eval('#viewport', (element) => {
      const rect = element.getBoundingClientRect()
      return {left: rect.left, top: rect.top, scale: rect.width / 320}
    })
    const clip = {x: Math.floor(box.left + x * box.scale), y: Math.floor(box.top + y * box.scale), width: 1, height: 1}
    const image = Buffer.from(await page.screenshot({clip, type: 'png'}))
    return pixel(decodeRgba(image, 1, 1), 0, 0).slice(0, 3)
  }

  const shownVariables = () => page.$eval('body', (body) => JSON.parse(body.dataset.shownVariables ?? '{}') as Record<string, unknown>)

  async function waitForShown(id: string, value: unknown): Promise<void> {
    await page.waitForFunction(
      (key, expected) => document.body.dataset.state === 'ready' && JSON.parse(document.body.dataset.shownVariables ?? '{}')[key] === expected,
      {},
      id,
      value,
    )
  }

  async function control(label: string) {
    const id = await page.$$eval('label[for]', (labels, text) => labels.find((node) => node.textContent === text)?.htmlFor, label)
    expect(id, `a <label for> with the text "${label}"`).toBeTruthy()
    return page.$eval(`#${id}`, (element) => ({
      tag: element.tagName.toLowerCase(),
      ...Object.fromEntries(Array.from(element.attributes, (attribute) => [attribute.name, attribute.value])),
      value: (element as HTMLInputElement).value,
      checked: (element as HTMLInputElement).checked,
      options: Array.from((element as HTMLSelectElement).options ?? [], (option) => ({value: option.value, label: option.textContent})),
      siblings: Array.from(element.parentElement!.children, (sibling) => (sibling as HTMLInputElement).type ?? sibling.textContent),
      unit: element.parentElement!.querySelector('.unit')?.textContent,
    }))
  }

  it('has a player: play, frame steps, a scrubber over every frame, time and frame readouts', async () => {
    expect(await page.$eval('#play', (button) => button.textContent)).toBe('Play')
    expect(await page.$('#step-back')).not.toBeNull()
    expect(await page.$('#step-forward')).not.toBeNull()
    const scrubber = await page.$eval('#scrubber', (input) => ({type: input.getAttribute('type'), min: input.getAttribute('min'), max: input.getAttribute('max')}))
    expect(scrubber).toEqual({type: 'range', min: '0', max: '59'})
    expect(await page.$eval('#time', (output) => output.textContent)).toBe('0:00.00')
    expect(await page.$eval('#duration', (output) => output.textContent)).toBe('0:02.00')
    expect(await page.$eval('#frame-number', (output) => output.textContent)).toBe('0')
    // Shown at its real size scaled to fit: the 16:9 composition keeps its aspect ratio.
    const size = await page.$eval('#viewport', (element) => [element.clientWidth, element.clientHeight])
    expect(size[0] / size[1]).toBeCloseTo(16 / 9, 1)
    expect(size[0]).toBeGreaterThan(320)
  })

  it('has one native control per variable type, labelled and configured from its declaration', async () => {
    expect(await control('Title')).toMatchObject({tag: 'input', type: 'text', placeholder: 'Headline text', maxlength: '40', value: 'Hello'})
    const size = await control('Box size')
    expect(size).toMatchObject({tag: 'input', type: 'number', min: '10', max: '100', step: '5', value: '40', unit: 'px'})
    expect(size.siblings).toContain('range')
    expect(await control('Accent colour')).toMatchObject({tag: 'input', type: 'color', value: '#ff0000'})
    expect(await control('Show bar')).toMatchObject({tag: 'input', type: 'checkbox', checked: true})
    const side = await control('Title side')
    expect(side).toMatchObject({tag: 'select', value: 'left'})
    expect(side.options).toEqual([
      {value: 'left', label: 'Left aligned'},
      {value: 'right', label: 'Right aligned'},
    ])
    // An image: a URL or project path, with a thumbnail of what the page will load.
    const logo = await control('Logo')
    expect(logo).toMatchObject({tag: 'input', type: 'text', value: ''})
    expect(logo.siblings).toHaveLength(2)
    expect(await page.$eval('#lint-findings', (list) => list.textContent)).toContain('No problems found')
  })

  it('shows a changed colour at once, and offers the values as --variables JSON', async () => {
    expect(near(await compositionPixel(80, 60), RED)).toBe(true)
    await page.$eval('input[type="color"]', (input) => {
      ;(input as HTMLInputElement).value = '#0000ff'
      input.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await waitForShown('accent', '#0000ff')
    expect(near(await compositionPixel(80, 60), BLUE)).toBe(true)
    const json = JSON.parse(await page.$eval('#variables-json', (area) => (area as HTMLTextAreaElement).value))
    expect(json).toEqual({title: 'Hello', size: 40, accent: '#0000ff', showBar: true, side: 'left', logo: ''})

    await page.select('select', 'right')
    await waitForShown('side', 'right')
    expect((await shownVariables()).accent).toBe('#0000ff')

    await page.click('#reset-variables')
    await waitForShown('accent', '#ff0000')
    expect(await shownVariables()).toEqual({title: 'Hello', size: 40, accent: '#ff0000', showBar: true, side: 'left', logo: ''})
    expect(near(await compositionPixel(80, 60), RED)).toBe(true)
  })

  it('seeks with the scrubber, the frame steps and the keyboard', async () => {
    // The green bar slides from x 0 to x 300 over the 2 s.
    expect(near(await compositionPixel(10, 160), GREEN)).toBe(true)
    await page.$eval('#scrubber', (input) => {
      ;(input as HTMLInputElement).value = '45'
      input.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await page.waitForSelector('body[data-frame="45"]')
    expect(await page.$eval('#frame-number', (output) => output.textContent)).toBe('45')
    expect(await page.$eval('#time', (output) => output.textContent)).toBe('0:01.50')
    expect(near(await compositionPixel(10, 160), BLACK)).toBe(true)
    expect(near(await compositionPixel(235, 160), GREEN)).toBe(true)

    await page.click('#step-forward')
    await page.waitForSelector('body[data-frame="46"]')
    await page.keyboard.press('ArrowLeft')
    await page.keyboard.press('ArrowLeft')
    await page.waitForSelector('body[data-frame="44"]')
    await page.keyboard.press('Home')
    await page.waitForSelector('body[data-frame="0"]')
    expect(await page.$eval('#time', (output) => output.textContent)).toBe('0:00.00')
  })

  it('going back past a timer that fired shows what a fresh page shows at that frame', async () => {
    const scrubTo = async (frame: number) => {
      await page.$eval(
        '#scrubber',
        (input, value) => {
          ;(input as HTMLInputElement).value = String(value)
          input.dispatchEvent(new Event('input', {bubbles: true}))
        },
        frame,
      )
      await page.waitForSelector(`body[data-frame="${frame}"][data-state="ready"]`)
    }
    await scrubTo(40)
    expect(near(await compositionPixel(206, 126), WHITE)).toBe(true)
    await scrubTo(20)
    expect(near(await compositionPixel(206, 126), BLACK)).toBe(true)
    await scrubTo(0)
  })

  it('plays and pauses with the space bar', async () => {
    await page.keyboard.press('Space')
    expect(await page.$eval('#play', (button) => button.textContent)).toBe('Pause')
    await page.waitForFunction(() => Number(document.body.dataset.frame) >= 10)
    await page.keyboard.press('Space')
    expect(await page.$eval('#play', (button) => button.textContent)).toBe('Play')
    const paused = await page.$eval('#frame-number', (output) => output.textContent)
    // The player steps on animation frames: ten of them are ten chances to move if it still played.
    await page.evaluate(
      () =>
        new Promise<void>((resolve) => {
          let left = 10
          const tick = () => (--left === 0 ? resolve() : requestAnimationFrame(tick))
          requestAnimationFrame(tick)
        }),
    )
    expect(await page.$eval('#frame-number', (output) => output.textContent)).toBe(paused)
  })

  it('reloads when the composition changes on disk, with its new declarations and lint findings', async () => {
    const source = await readFile(composition, 'utf8')
    const changed = source
      .replace('"default":"#ff0000"', '"default":"#00ff00"')
      .replace("\n  ]'>", `,\n    {"id":"data","type":"object","label":"Data","default":{}}\n  ]'>`)
    expect(changed).not.toBe(source)
    await writeFile(composition, changed)
    await waitForShown('accent', '#00ff00')
    expect(near(await compositionPixel(80, 60), GREEN)).toBe(true)
    expect(await page.$eval('#lint-findings', (list) => list.textContent)).toContain('variable-unknown-type')
    expect(await page.$$eval('#variables-form .variable', (fields) => fields.length)).toBe(6)
  })

  it('shows why a composition broken on disk cannot be shown, and recovers when it is fixed', async () => {
    const source = await readFile(composition, 'utf8')
    await writeFile(composition, source.replace(' data-width="320"', ''))
    await page.waitForSelector('body[data-state="error"]')
    expect(await page.$eval('#composition-error', (box) => box.textContent)).toContain('data-width')
    expect(await page.$eval('#lint-findings', (list) => list.textContent)).toContain('composition-attribute-missing')
    await writeFile(composition, source)
    await page.waitForSelector('body[data-state="ready"]')
    expect(await page.$eval('#composition-error', (box) => (box as HTMLElement).hidden)).toBe(true)
  })

  it('raised no page errors', () => {
    expect(pageErrors).toEqual([])
  })
})
