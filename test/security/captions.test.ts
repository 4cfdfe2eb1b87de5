import {mkdir, mkdtemp, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openCaptureWorker, type CaptureWorker} from '../../src/lib/capture/index.js'
import {compileComposition} from '../../src/lib/compose/index.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {registerBuiltinPlugins} from '../../src/lib/builtin-plugins.js'
import {planRender} from '../../src/lib/plan/plan-render.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {ensureRuntimeBundle} from '../runtime/support/ensure-runtime-bundle.js'
import {testBrowser} from '../runtime/support/test-browser.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const VTT = 'WEBVTT\n\n00:00.000 --> 00:01.000\nsecret\n'

function page(captionsAttributes: string, variables = ''): string {
  const declarations = variables ? ` data-composition-variables='${variables}'` : ''
  return `<html${declarations}><body><div data-composition-id="c" data-width="320" data-height="180" data-duration="1"><div ${captionsAttributes}></div></div></body></html>`
}

describe('captions: hostile paths and cue text', PROCESSES, () => {
  let root: string
  let project: string

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'engine-captions-security-'))
    project = join(root, 'project')
    await mkdir(project)
    await writeFile(join(root, 'outside.vtt'), VTT)
    await writeFile(join(project, '.hidden.vtt'), VTT)
    await symlink(join(root, 'outside.vtt'), join(project, 'link.vtt'))
  })
  afterAll(() => rm(root, {recursive: true, force: true}))

  const compileWith = async (html: string, variables?: Record<string, unknown>) => {
    const file = join(project, 'index.html')
    await writeFile(file, html)
    return compileComposition(file, {projectDir: project, variables})
  }

  it('refuses a caption file outside the project, through a symlink, a dot-file or a URL, the same way whether or not it exists', async () => {
    for (const path of ['../outside.vtt', '../missing.vtt', '/etc/passwd', 'link.vtt', '.hidden.vtt', 'file:///etc/passwd', 'http://127.0.0.2/c.vtt']) {
      await expect(compileWith(page(`data-captions="${path}"`)), path).rejects.toMatchObject({code: 'PATH_OUTSIDE_ROOT'})
    }
  })

  it('refuses a caption variable naming a path outside the project', async () => {
    const declared = '[{"id": "subs", "type": "string", "label": "Captions", "default": "x.vtt"}]'
    for (const subs of ['../outside.vtt', '/etc/passwd']) {
      await expect(compileWith(page('data-captions-var="subs"', declared), {subs}), subs).rejects.toMatchObject({code: 'PATH_OUTSIDE_ROOT'})
    }
  })

  describe('in the page', () => {
    let worker: CaptureWorker
    beforeAll(async () => {
      registerBuiltinPlugins()
      await ensureRuntimeBundle()
      const compiled = await compileComposition(join(REPO_ROOT, 'test', 'fixtures', 'captions', 'captions.html'))
      const {plan} = planRender({...compiled, durationSeconds: 2}, resolveRenderOptions({quality: 'draft'}), getFormat('mp4'))
      worker = await openCaptureWorker(plan, {browser: testBrowser()})
    })
    afterAll(() => worker?.close())

    it('cue markup is written as text, never parsed as HTML', async () => {
      // Frame 48 (1.6 s): the cue `<img src=x onerror=…>Tom &amp; &lt;b&gt;Jerry&lt;/b&gt;`.
      const shown = await worker.evaluate<{text: string; elements: number; images: number; title: string}>(
        `__engine.seek(48).then(() => { const box = document.getElementById('first'); return {text: box.textContent, elements: box.childElementCount, images: document.images.length, title: document.title} })`,
      )
      expect(shown).toEqual({text: 'Tom & <b>Jerry</b>', elements: 0, images: 0, title: ''})
    })
  })
})
