import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {near, pixelAt} from '../support/media.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import '../support/register-builtin-plugins.js'

/** Draws nothing until data.json (a project file) has arrived; the hold keeps the first frame waiting for it. */
const FETCHING = `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="184" data-duration="0.2">
<body style="margin:0;background:#000000"><div id="box" style="width:320px;height:184px"></div>
<script>
  const done = __engine.hold('loading data')
  const other = __engine.hold('second hold')
  // Forty requests one after another: real time the capture would not otherwise wait for.
  const load = async () => {
    let data
    for (let round = 0; round < 40; round++) data = await (await fetch('data.json?round=' + round)).json()
    return data
  }
  load().then((data) => {
    document.getElementById('box').style.background = data.color
    other()
    done()
  })
</script></body></html>`

const NEVER = `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" data-duration="0.2" data-ready-timeout="1.5">
<body style="margin:0"><script>
  __engine.hold('chart')
  __engine.hold('map tiles')
  const released = __engine.hold('released one')
  released()
</script></body></html>`

describe('__engine.hold(): a composition holds its first frame until its own work is done', PROCESSES, () => {
  const scratch = useScratchDir('engine-holds-')

  beforeAll(async () => {
    await writeFile(join(scratch(), 'package.json'), '{}')
    await writeFile(join(scratch(), 'data.json'), JSON.stringify({color: '#00ff00'}))
    await writeFile(join(scratch(), 'fetching.html'), FETCHING)
    await writeFile(join(scratch(), 'never.html'), NEVER)
  })

  const render = (file: string, output: string, options: Record<string, unknown>) =>
    renderComposition({composition: join(scratch(), file), options: resolveRenderOptions({output: join(scratch(), output), quality: 'draft', fps: 10, ...options})})

  it('renders the drawn state in frame 0 with begin-frame screenshots on two workers, and with page screenshots below half scale', async () => {
    const beginFrame = await render('fetching.html', 'begin-frame.mp4', {scale: 0.5, workers: 2})
    const belowHalf = await render('fetching.html', 'below-half.mp4', {scale: 0.25})
    for (const [output, x] of [[beginFrame.output, 80], [belowHalf.output, 40]] as const) {
      expect(near(await pixelAt(output, 0, x, 20), {r: 0, g: 255, b: 0}), output).toBe(true)
      expect(near(await pixelAt(output, 1, x, 20), {r: 0, g: 255, b: 0}), output).toBe(true)
    }
  })

  it('fails a hold never released after data-ready-timeout, naming every label still held and no other', async () => {
    const failure = await render('never.html', 'never.mp4', {scale: 0.5}).then(
      () => expect.unreachable('the render should time out'),
      (error: Error & {code?: string; detail?: Record<string, unknown>}) => error,
    )
    expect(failure.code).toBe('PAGE_TIMEOUT')
    expect(failure.message).toContain('not ready after 1.5 s')
    expect(failure.message).toContain('__engine.hold() to be released, still held: "chart", "map tiles"')
    expect(failure.message).not.toContain('released one')
  })
})
