import {copyFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {near, pixelAt} from '../support/media.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {page, render, SLOW, useProject} from './support.js'

describe('the first frame of a registered timeline', SLOW, () => {
  const project = useProject()

  it('shows a set() at its start, as a browser playing it does from the first tick', async () => {
    await copyFile(join(REPO_ROOT, 'node_modules/gsap/dist/gsap.min.js'), join(project.dir(), 'gsap.min.js'))
    const composition = await project.write(
      'index.html',
      page(
        `<div id="card" style="position:absolute; inset:0; background:#f00; opacity:0"></div>
<script src="gsap.min.js"></script>
<script>
  const tl = gsap.timeline({defaults: {ease: 'none'}})
  window.__timelines = {main: tl}
  tl.set('#card', {opacity: 1}, 0)
  tl.to('#card', {opacity: 0, duration: 0.5}, 0.5)
</script>`,
        {head: '<style>html, body { background: #000 }</style>'},
      ),
    )
    const output = join(project.dir(), 'out.mp4')
    await render(composition, {output})
    expect(near(await pixelAt(output, 0, 10, 10), {r: 255, g: 0, b: 0}, 30), 'frame 0').toBe(true)
    expect(near(await pixelAt(output, 9, 10, 10), {r: 51, g: 0, b: 0}, 30), 'frame 9, fading out').toBe(true)
  })
})
