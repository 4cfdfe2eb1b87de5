import {subscribe, unsubscribe} from 'node:diagnostics_channel'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {TIMELINE_CHANNEL, type TimelineSpan} from '../../src/lib/trace/timeline.js'
import '../support/register-builtin-plugins.js'
import {expectSameFrames, frameFiles, sha256File, useScratchDir} from './support.js'

// 4 s at 30 fps. Everything moves:
// a CSS animation, a canvas drawn in requestAnimationFrame with Math.random, a Date-driven clock.
const COMPOSITION = `<!doctype html>
<html>
<head><style>
  html, body { margin: 0; }
  #root { position: relative; width: 320px; height: 180px; background: #182030; overflow: hidden; color: #fff; font: 16px monospace; }
  #spin { position: absolute; left: 200px; top: 40px; width: 50px; height: 50px; background: #e06020; animation: spin 2s linear infinite; }
  #clock { position: absolute; left: 10px; top: 150px; }
  canvas { position: absolute; left: 0; top: 100px; }
  @keyframes spin { to { transform: rotate(360deg); } }
</style></head>
<body>
  <div id="root" data-composition-id="pages" data-width="320" data-height="180" data-duration="4">
    <div id="spin"></div><canvas id="canvas" width="320" height="30"></canvas><div id="clock"></div>
  </div>
  <script>
    const ctx = document.getElementById('canvas').getContext('2d')
    function draw(t) {
      ctx.fillStyle = 'hsl(' + Math.floor(Math.random() * 360) + ', 80%, 50%)'
      ctx.fillRect((t / 10) % 300, Math.random() * 20, 20, 10)
      document.getElementById('clock').textContent = new Date(Date.now()).toISOString()
      requestAnimationFrame(draw)
    }
    requestAnimationFrame(draw)
  </script>
</body>
</html>`

describe('a worker alternating frames between two pages', () => {
  const scratch = useScratchDir()

  async function render(name: string, format: 'mp4' | 'png-sequence', pagesPerWorker?: 1 | 2, cores?: number) {
    const project = join(scratch(), 'project')
    await mkdir(project, {recursive: true})
    await writeFile(join(project, 'index.html'), COMPOSITION)
    const spans: TimelineSpan[] = []
    const onSpan = (span: unknown) => void spans.push(span as TimelineSpan)
    subscribe(TIMELINE_CHANNEL, onSpan)
    try {
      const output = join(scratch(), name)
      await renderComposition({composition: join(project, 'index.html'), options: resolveRenderOptions({format, workers: 1, output}), pagesPerWorker, cores})
      const pages = new Set(spans.filter((span) => span.stage === 'capture').map((span) => span.page))
      return {output, pages: pages.size}
    } finally {
      unsubscribe(TIMELINE_CHANNEL, onSpan)
    }
  }

  it('renders an mp4 byte-identical to one page', async () => {
    const two = await render('two.mp4', 'mp4', 2)
    const one = await render('one.mp4', 'mp4', 1)
    expect(two.pages).toBe(2)
    expect(one.pages).toBe(1)
    expect(await sha256File(two.output)).toBe(await sha256File(one.output))
  })

  it('uses one page by default, however many cores a worker has: only one page per worker gives the same frames for any split', async () => {
    expect((await render('many-cores.mp4', 'mp4', undefined, 16)).pages).toBe(1)
  })

  it('writes the same PNG frames (alpha capture) as one page', async () => {
    const two = await render('two-frames', 'png-sequence', 2)
    const one = await render('one-frames', 'png-sequence', 1)
    expect(two.pages).toBe(2)
    const frames = await frameFiles(one.output)
    expect(frames.size).toBe(120)
    expectSameFrames(await frameFiles(two.output), frames)
  })
})
