import {cp, mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {Browser, Page} from 'puppeteer-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startPreviewServer, type PreviewServer} from '../../src/lib/preview/index.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {ensurePreviewClient} from './support/ensure-preview-client.js'
import {openPlayer} from './support/open-player.js'
import {PROCESSES} from '../support/timeouts.js'

/** captions.html (2 s): `subs` is shown by data-captions-var; subs/en.vtt says "Hello" and subs/fr.srt "Bonjour" for its first second. */
const FIXTURE = join(import.meta.dirname, '../fixtures/preview/captions')
const TYPED = 'WEBVTT\n\n00:00.000 --> 00:01.000\nTyped here'

describe('engine preview: the control of a caption variable', PROCESSES, () => {
  let directory: string
  let server: PreviewServer
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    await Promise.all([ensureRuntimeBundle(), ensurePreviewClient()])
    directory = await mkdtemp(join(tmpdir(), 'engine-preview-captions-'))
    await cp(FIXTURE, directory, {recursive: true})
    server = await startPreviewServer({composition: join(directory, 'captions.html'), port: 0, fps: {num: 30, den: 1}})
    ;({browser, page} = await openPlayer(server.url))
  })

  afterAll(async () => {
    await browser?.close()
    await server?.close()
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  /** The caption text the composition on screen shows. */
  const shownCaption = () => page.$eval('iframe.current', (frame) => (frame as HTMLIFrameElement).contentDocument?.querySelector('#subs')?.textContent ?? null)

  async function waitForSubs(value: string): Promise<void> {
    await page.waitForFunction((expected) => document.body.dataset.state === 'ready' && JSON.parse(document.body.dataset.shownVariables ?? '{}').subs === expected, {}, value)
  }

  it('offers no captions, each caption file of the project, or typed cues; a plain string keeps its text field', async () => {
    const control = await page.$eval('.variable[data-variable="subs"]', (field) => ({
      select: Array.from(field.querySelectorAll('select option'), (option) => [(option as HTMLOptionElement).value, option.textContent]),
      value: (field.querySelector('select') as HTMLSelectElement).value,
      label: field.querySelector('label')?.textContent,
      labelled: field.querySelector('label')?.htmlFor === field.querySelector('select')?.id,
      cues: (field.querySelector('textarea') as HTMLTextAreaElement | null)?.value,
    }))
    expect(control).toEqual({
      select: [['', 'No captions'], ['subs/en.vtt', 'subs/en.vtt'], ['subs/fr.srt', 'subs/fr.srt'], ['(typed)', 'Cues typed below']],
      value: 'subs/en.vtt',
      label: 'Subtitles',
      labelled: true,
      cues: '',
    })
    expect(await page.$eval('.variable[data-variable="title"] .control', (control) => Array.from(control.children, (child) => (child as HTMLInputElement).type))).toEqual(['text'])
    expect(await shownCaption()).toBe('Hello')
  })

  it('choosing another file shows its cues; typing cues shows them at their time and not after', async () => {
    await page.select('.variable[data-variable="subs"] select', 'subs/fr.srt')
    await waitForSubs('subs/fr.srt')
    expect(await shownCaption()).toBe('Bonjour')

    await page.$eval(
      '.variable[data-variable="subs"] textarea',
      (area, text) => {
        ;(area as HTMLTextAreaElement).value = text
        area.dispatchEvent(new Event('input', {bubbles: true}))
      },
      TYPED,
    )
    await waitForSubs(TYPED)
    expect(await page.$eval('.variable[data-variable="subs"] select', (select) => (select as HTMLSelectElement).value)).toBe('(typed)')
    expect(await shownCaption()).toBe('Typed here')
    expect(JSON.parse(await page.$eval('#variables-json', (area) => (area as HTMLTextAreaElement).value))).toEqual({subs: TYPED, title: 'Hi'})
    // Past the cue's end (1 s): frame 45 is 1.5 s.
    await page.$eval('#scrubber', (input) => {
      ;(input as HTMLInputElement).value = '45'
      input.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await page.waitForSelector('body[data-frame="45"][data-state="ready"]')
    expect(await shownCaption()).toBe('')

    await page.select('.variable[data-variable="subs"] select', '')
    await waitForSubs('')
  })

  it('cue text that does not parse says why, with its line, and showing a file again recovers', async () => {
    await page.$eval('.variable[data-variable="subs"] textarea', (area) => {
      ;(area as HTMLTextAreaElement).value = 'WEBVTT\n\n00:00.000 --> soon\nBroken'
      area.dispatchEvent(new Event('input', {bubbles: true}))
    })
    await page.waitForSelector('body[data-state="error"]')
    expect(await page.$eval('#composition-error', (box) => box.textContent)).toMatch(/^CAPTIONS_INVALID: .*line 3/)
    await page.select('.variable[data-variable="subs"] select', 'subs/en.vtt')
    await waitForSubs('subs/en.vtt')
    expect(await page.$eval('#composition-error', (box) => (box as HTMLElement).hidden)).toBe(true)
  })
})
