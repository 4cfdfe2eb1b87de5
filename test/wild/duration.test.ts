import {copyFile, readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {page, render, SLOW, useProject} from './support.js'

/** A box GSAP moves across the frame on a timeline registered for the root, as templates do. */
function timelinePage(timeline: string, attributes = ''): string {
  return page(
    `<div id="box" style="position:absolute; left:0; top:60px; width:40px; height:40px; background:#f00"></div>
<script src="gsap.min.js"></script>
<script>
  const tl = gsap.timeline({paused: true})
  ${timeline}
  window.__timelines = window.__timelines || {}
  window.__timelines["main"] = tl
</script>`,
    {attributes, head: '<style>html, body { background: #fff }</style>'},
  )
}

describe('a root without data-duration', SLOW, () => {
  const project = useProject()
  beforeAll(async () => {
    await project.write('package.json', '{}')
    await copyFile(join(REPO_ROOT, 'node_modules/gsap/dist/gsap.min.js'), join(project.dir(), 'gsap.min.js'))
  })

  it('renders the length of its registered GSAP timeline, with a duration-inferred warning giving the value', async () => {
    const composition = await project.write('timeline.html', timelinePage(`tl.to('#box', {x: 280, duration: 1.5, ease: 'none'})`))
    const output = join(project.dir(), 'timeline.mp4')
    const result = await render(composition, {output})
    expect(result.warnings).toEqual([
      {code: 'duration-inferred', message: expect.stringMatching(/the root composition "main" of .*timeline\.html has no data-duration: rendering 1\.5 s, the length of its longest registered timeline; write data-duration="1\.5"/)},
    ])
    expect(result.totalFrames).toBe(15)
    expect(await probeVideoStream(output)).toMatchObject({nb_read_frames: '15'})
    // The timeline plays over those frames: the box starts at the left and ends near the right edge.
    const [start, end, left] = await Promise.all([pixelAt(output, 0, 20, 80), pixelAt(output, 14, 280, 80), pixelAt(output, 14, 20, 80)])
    expect(near(start, {r: 255, g: 0, b: 0}, 40), JSON.stringify(start)).toBe(true)
    expect(near(end, {r: 255, g: 0, b: 0}, 40), JSON.stringify(end)).toBe(true)
    expect(near(left, {r: 255, g: 255, b: 255}, 40), JSON.stringify(left)).toBe(true)
  })

  it('counts repeats; a timeline that repeats forever has no length to take', async () => {
    const repeated = await project.write('repeated.html', timelinePage(`tl.to('#box', {x: 100, duration: 0.4, repeat: 2})`))
    expect((await render(repeated, {output: join(project.dir(), 'repeated.mp4')})).totalFrames).toBe(12)
    const endless = await project.write('endless.html', timelinePage(`tl.to('#box', {x: 100, duration: 0.5, repeat: -1})`))
    const error = await render(endless, {output: join(project.dir(), 'endless.mp4')}).catch((caught: unknown) => caught)
    expect((error as Error).message).toMatch(/its registered timeline repeats forever \(repeat: -1\), so it has no length to take: add data-duration/)
  })

  it('is an error under --strict, and without any timeline, each naming the fix; nothing is written', async () => {
    const composition = await project.write('strict.html', timelinePage(`tl.to('#box', {x: 280, duration: 1})`))
    const strict = await render(composition, {output: join(project.dir(), 'strict-out', 'a.mp4'), strict: true}).catch((caught: unknown) => caught)
    expect(isEngineError(strict, 'COMPOSITION_INVALID')).toBe(true)
    expect((strict as Error).message).toMatch(/has no data-duration; --strict does not take the length from its timelines: add data-duration="<seconds>"/)
    const bare = await project.write('bare.html', page('<p>no timeline</p>', {attributes: ''}))
    const none = await render(bare, {output: join(project.dir(), 'strict-out', 'b.mp4')}).catch((caught: unknown) => caught)
    expect(isEngineError(none, 'COMPOSITION_INVALID')).toBe(true)
    expect((none as Error).message).toMatch(/has no data-duration and its page registers no timeline to take the length from: add data-duration="<seconds>" to the root element, or register its GSAP timeline as window.__timelines\["main"\] = tl/)
    expect(await readdir(project.dir())).not.toContain('strict-out')
  })

  it('is a lint warning where a script may register a timeline, an error where none can', async () => {
    const withTimeline = await project.write('lint-timeline.html', timelinePage(`tl.to('#box', {x: 1, duration: 1})`))
    expect(await lintComposition(withTimeline)).toEqual([expect.objectContaining({code: 'duration-inferred', severity: 'warning', line: 2})])
    const bare = await project.write('lint-bare.html', page('<p>x</p>', {attributes: ''}))
    expect(await lintComposition(bare)).toEqual([expect.objectContaining({code: 'composition-attribute-missing', severity: 'error', message: expect.stringMatching(/no data-duration and no script that registers a timeline/)})])
  })
})
