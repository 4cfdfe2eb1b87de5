import {execFile} from 'node:child_process'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'
import {renderBatch} from '../../src/lib/batch/index.js'
import {extractCompositionMetadata} from '../../src/lib/compose/extract-composition-metadata.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {near, pixelAt} from '../support/media.js'
import {PROCESSES} from '../support/timeouts.js'
import {useScratchDir} from './support.js'
import '../support/register-builtin-plugins.js'

const exec = promisify(execFile)

const DECLARATIONS = JSON.stringify([
  {id: 'logo', type: 'image', label: 'Logo', default: 'images/red.png'},
  {id: 'photo', type: 'image', label: 'Photo', default: ''},
  {id: 'title', type: 'string', label: 'Title', default: 'x'},
]).replace(/"/g, '&quot;')

/** The logo through data-var-src at the top left; the photo drawn by a script into a canvas at the top right, as soon as the page runs. */
const PAGE = `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" data-duration="0.2" data-composition-variables="${DECLARATIONS}">
<body style="margin:0;background:#0000ff">
<img data-var-src="logo" style="position:absolute;left:0;top:0;width:80px;height:80px">
<canvas id="c" width="80" height="80" style="position:absolute;right:0;top:0"></canvas>
<script>
  const {photo = ''} = __engine.getVariables()
  if (photo) {
    const image = new Image()
    image.src = photo
    // Drawn once, synchronously at load: only an image decoded before the first frame shows.
    image.decode().then(() => document.getElementById('c').getContext('2d').drawImage(image, 0, 0, 80, 80))
  }
</script>
</body></html>`

describe('image variables', PROCESSES, () => {
  const scratch = useScratchDir()
  let composition: string

  beforeAll(async () => {
    const project = scratch()
    await writeFile(join(project, 'package.json'), '{}')
    await mkdir(join(project, 'images'))
    const png = (colour: string, file: string) => exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-f', 'lavfi', '-i', `color=${colour}:s=40x40`, '-frames:v', '1', join(project, file)])
    await Promise.all([png('red', 'images/red.png'), png('lime', 'images/green.png'), png('yellow', 'yellow.jpg')])
    await writeFile(join(project, 'images', 'notes.png'), 'this is text, not an image\n')
    composition = join(project, 'card.html')
    await writeFile(composition, PAGE)
  })

  it('declares the type: extractCompositionMetadata lists it, an object type is still dropped', async () => {
    const {variables} = extractCompositionMetadata(PAGE.replace('{&quot;id&quot;:&quot;title&quot;,&quot;type&quot;:&quot;string&quot;', '{&quot;id&quot;:&quot;title&quot;,&quot;type&quot;:&quot;object&quot;'))
    expect(variables.map((variable) => [variable.id, variable.type])).toEqual([
      ['logo', 'image'],
      ['photo', 'image'],
    ])
  })

  it("draws the default image through data-var-src and an override read with getVariables() into a canvas, in frame 0", async () => {
    const output = join(scratch(), 'card.mp4')
    await renderComposition({composition, options: resolveRenderOptions({output, quality: 'draft', scale: 0.5}), variables: {photo: '/images/green.png'}})
    // At scale 0.5: the logo covers 0-40, the canvas 120-160 of the 160x90 frame.
    expect(near(await pixelAt(output, 0, 20, 20), {r: 255, g: 0, b: 0})).toBe(true)
    expect(near(await pixelAt(output, 0, 140, 20), {r: 0, g: 255, b: 0})).toBe(true)
    expect(near(await pixelAt(output, 0, 80, 60), {r: 0, g: 0, b: 255})).toBe(true)
  })

  it('refuses a missing file and a file that is not an image before rendering, naming the variable and the value', async () => {
    const failure = renderComposition({composition, options: resolveRenderOptions({output: join(scratch(), 'no.mp4')}), variables: {logo: 'images/gone.png', photo: 'images/notes.png'}})
    await expect(failure).rejects.toMatchObject({code: 'INVALID_VARIABLES'})
    const message = await failure.catch((error: Error) => error.message)
    expect(message).toContain('image variable "logo": "images/gone.png" names images/gone.png, which does not exist')
    expect(message).toContain('image variable "photo": "images/notes.png" is not an image the browser decodes')
  })

  it('a batch names each bad row, its line and its value in preflight, from CSV cells and JSON values alike', async () => {
    const csv = join(scratch(), 'rows.csv')
    await writeFile(csv, 'logo,title\nimages/green.png,a\nimages/missing.png,b\nimages/notes.png,c\n')
    const json = join(scratch(), 'rows.json')
    await writeFile(json, JSON.stringify([{photo: 'yellow.jpg'}, {photo: '../outside.png'}]))
    const batch = (file: string, output: string) =>
      renderBatch({composition, batchFile: file, options: resolveRenderOptions({output: join(scratch(), output), quality: 'draft', scale: 0.5}), render: renderComposition}).then(
        () => expect.unreachable('the batch should fail its preflight'),
        (error: Error & {code?: string}) => error,
      )
    const csvError = await batch(csv, 'csv-{index}.mp4')
    expect(csvError).toMatchObject({code: 'BATCH_PREFLIGHT'})
    expect(csvError.message).toContain('row 1 (line 3), "logo": [image] "images/missing.png" names images/missing.png, which does not exist')
    expect(csvError.message).toContain('row 2 (line 4), "logo": [image] "images/notes.png" is not an image the browser decodes')
    expect(csvError.message).not.toContain('row 0')
    const jsonError = await batch(json, 'json-{index}.mp4')
    expect(jsonError.message).toContain('row 1, "photo": [image] "../outside.png" is outside the project')
    expect(jsonError.message).not.toContain('row 0')
  })
})
