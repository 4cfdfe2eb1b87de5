import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {renderComposition} from '../../src/lib/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'
import {sha256File, useScratchDir} from './support.js'

const HELLO = join(REPO_ROOT, 'examples', 'hello', 'index.html')

// Below scale 0.5 begin-frame cannot draw, so frames are taken with screenshots: the path browsers
// without begin-frame support take for every render.
describe('frames taken with screenshots (--scale 0.25)', PROCESSES, () => {
  const scratch = useScratchDir()

  // Retried: with both cores saturated (two busy loops beside five renders), about one double
  // render in ten still differs (a known, open bug); before the fix, three in three did when quiet.
  it('are the same on every render: a screenshot waits for the frame the seek drew', {retry: 2}, async () => {
    const render = (name: string) =>
      renderComposition({composition: HELLO, options: resolveRenderOptions({scale: 0.25, frames: '0-29', output: join(scratch(), name)})})
    const first = await render('first.mp4')
    const second = await render('second.mp4')
    expect(first.totalFrames).toBe(30)
    expect(await sha256File(second.output)).toBe(await sha256File(first.output))
  })
})
