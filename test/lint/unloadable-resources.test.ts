import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {lintComposition} from '../../src/lib/lint/lint-composition.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'
import '../support/register-builtin-plugins.js'

const D3 = 'https://cdn.jsdelivr.net/npm/d3@7/dist/d3.min.js'

const page = (head: string) => `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" data-duration="0.2">
<head>${head}</head>
<body style="margin:0"><script>d3.select('body').style('background', 'red')</script></body></html>`

describe('scripts and stylesheets that cannot load', PROCESSES, () => {
  const scratch = useScratchDir('engine-unloadable-')

  beforeAll(async () => {
    await writeFile(join(scratch(), 'package.json'), '{}')
    await mkdir(join(scratch(), 'vendor'))
    await writeFile(join(scratch(), 'vendor', 'here.js'), 'window.here = true\n')
    await writeFile(
      join(scratch(), 'all.html'),
      page(
        `<script src="vendor/here.js"></script><script src="vendor/d3.min.js"></script><script src="${D3}"></script>` +
          '<link rel="stylesheet" href="http://127.0.0.1:8080/theme.css"><link rel="stylesheet" href="styles/missing.css">',
      ),
    )
    await writeFile(join(scratch(), 'missing.html'), page('<script src="vendor/d3.min.js"></script>'))
    await writeFile(join(scratch(), 'remote.html'), page(`<script src="${D3}"></script>`))
  })

  it('lint names each missing project file, remote library and refused address with the fix; a present file is no finding', async () => {
    const findings = await lintComposition(join(scratch(), 'all.html'))
    const byCode = (code: string) => findings.filter((finding) => finding.code === code)
    expect(byCode('resource-missing').map((finding) => finding.message)).toEqual([
      expect.stringMatching(/^<script src="vendor\/d3.min.js"> names vendor\/d3.min.js, which does not exist .*npm install it and point at node_modules/),
      expect.stringMatching(/^<link .*href="styles\/missing.css"> names styles\/missing.css, which does not exist/),
    ])
    expect(byCode('resource-remote')).toEqual([
      expect.objectContaining({severity: 'warning', message: expect.stringContaining(`<script src="${D3}"> is loaded from the network at render time`)}),
    ])
    expect(byCode('resource-refused')).toEqual([
      expect.objectContaining({severity: 'error', message: expect.stringContaining('href="http://127.0.0.1:8080/theme.css"> is on a loopback address')}),
    ])
    expect(findings.some((finding) => finding.message.includes('here.js'))).toBe(false)
  })

  it('a render refuses a remote script under --no-network before any browser starts, naming the URL', async () => {
    const failure = renderComposition({composition: join(scratch(), 'remote.html'), options: resolveRenderOptions({output: join(scratch(), 'remote.mp4'), network: false})})
    await expect(failure).rejects.toMatchObject({code: 'REQUEST_BLOCKED', message: expect.stringContaining(`<script src="${D3}"> needs the network, which --no-network turns off`)})
  })

  it("the page error a missing library causes names the file that did not load", async () => {
    const failure = renderComposition({composition: join(scratch(), 'missing.html'), options: resolveRenderOptions({output: join(scratch(), 'missing.mp4'), scale: 0.5})})
    await expect(failure).rejects.toMatchObject({
      code: 'PAGE_ERROR',
      message: expect.stringMatching(/d3 is not defined.*before it, the page could not load http:\/\/project\.engine\.localhost\/vendor\/d3\.min\.js: .*vendor the file/),
    })
  })
})
