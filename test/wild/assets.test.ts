import {execFile} from 'node:child_process'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {page, render, SLOW, useProject} from './support.js'

const BODY = `<style>.panel { width: 80px; height: 40px; background-image: url('img/none.png') } @font-face { font-family: Gone; src: url(fonts/gone.woff2) }</style>
<img id="logo" src="logo.png" width="40" height="40">
<img id="present" src="present.png" width="40" height="40">
<div class="panel"></div>
<div id="hero" style="width: 40px; height: 40px; background: url(&quot;bg/missing.jpg&quot;) center / cover"></div>
<picture><source srcset="wide.webp 2x, narrow.webp"><img src="present.png" width="10" height="10"></picture>
<img src="https://cdn.example.test/remote.png" width="1" height="1"><img src="data:image/png;base64,AAAA" width="1" height="1">
<img src="../outside-missing.png" width="1" height="1"><img src="../outside.png" width="1" height="1">
<p style="font-family: Gone">g</p>`

describe('a missing image', SLOW, () => {
  const project = useProject()
  beforeAll(async () => {
    await project.write('site/package.json', '{}')
    await promisify(execFile)('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', 'color=c=blue:s=8x8', '-frames:v', '1', join(project.dir(), 'site/present.png')])
    await project.write('outside.png', 'not inside the project')
  })

  it('is an asset-missing warning at render with the path, once each; present, remote and data URLs are not', async () => {
    const composition = await project.write('site/index.html', page(BODY))
    const {warnings} = await render(composition, {output: join(project.dir(), 'out.mp4'), network: false})
    const missing = warnings.filter((warning) => warning.code === 'asset-missing').map((warning) => warning.message)
    expect(missing).toEqual([
      expect.stringMatching(/^<img id="logo"> names logo\.png, but logo\.png does not exist in .*site: it renders blank/),
      expect.stringMatching(/^the srcset of <source> names wide\.webp, but wide\.webp does not exist/),
      expect.stringMatching(/^the srcset of <source> names narrow\.webp/),
      expect.stringMatching(/^<img> names \.\.\/outside-missing\.png, but outside-missing\.png does not exist in .*site/),
      // The page cannot reach above its project: the file beside it is as missing as any other.
      expect.stringMatching(/^<img> names \.\.\/outside\.png, but outside\.png does not exist in .*site/),
      expect.stringMatching(/^a url\(\) in <style> \(background-image\) names img\/none\.png, but img\/none\.png does not exist/),
      expect.stringMatching(/^the src of an @font-face rule in <style> names fonts\/gone\.woff2, but fonts\/gone\.woff2 does not exist/),
      expect.stringMatching(/^a url\(\) in the style attribute of <div id="hero"> names bg\/missing\.jpg/),
    ])
    expect(missing.join('\n')).not.toMatch(/present|remote|data:/)
    // Text in the family whose file is missing falls back, and the fix points at that rule, not at installing "Gone".
    expect(warnings.filter((warning) => warning.code === 'font-fallback').map((warning) => warning.message)).toEqual([
      expect.stringMatching(/^font "Gone" 400 is not available to the page, so <p> "g" falls back to another font: the composition's @font-face rule for it did not load/),
    ])
  })

  it('added by a script later is told when the page asks for it', async () => {
    const composition = await project.write(
      'site/later.html',
      page(`<script>setTimeout(() => { const image = document.createElement('img'); image.src = 'later.png'; document.body.append(image) }, 500)</script>`),
    )
    const {warnings} = await render(composition, {output: join(project.dir(), 'later.mp4')})
    expect(warnings).toEqual([{code: 'asset-missing', message: expect.stringMatching(/^the page asked for an image, later\.png, which does not exist in .*site: it renders blank/)}])
  })

  it('is a lint warning', async () => {
    const composition = await project.write('site/lint.html', page('<img src="nope.png">'))
    expect(await lintComposition(composition)).toEqual([expect.objectContaining({code: 'asset-missing', severity: 'warning', message: expect.stringMatching(/names nope\.png, but nope\.png does not exist/)})])
  })
})
