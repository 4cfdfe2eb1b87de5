import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'

// A family nobody serves: a warning by default, an error with --strict-fonts.
const COMPOSITION = `<!doctype html><html><body>
<div data-composition-id="main" data-width="320" data-height="180" data-duration="0.2" style="font-family: 'Nobody Serves This'">Hello</div>
</body></html>`

describe('lambda render --strict-fonts', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]) => runCli(['lambda', ...args], {env: stack.env})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-strict-fonts-'))])
    await mkdir(join(scratch, 'site'))
    await writeFile(join(scratch, 'site', 'index.html'), COMPOSITION)
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('fails in the plan step naming the family, and renders with a warning without the flag', async () => {
    const strict = await lambda(['render', join(scratch, 'site'), '--strict-fonts', '--output-key', 'out/strict.mp4', '--wait'])
    expect(strict.code).toBe(1)
    expect(strict.stderr).toMatch(/FONT_MISSING.*--strict-fonts: 1 font fallback/)
    expect(strict.stderr).toContain('Nobody Serves This')
    expect(await stack.bucket.exists('out/strict.mp4')).toBe(false)

    const lenient = await lambda(['render', join(scratch, 'site'), '--output-key', 'out/lenient.mp4', '--wait'])
    expect(lenient.code, lenient.stderr).toBe(0)
    expect(lenient.stdout).toMatch(/Warning \[font-fallback\]: .*Nobody Serves This/)
    expect(await stack.bucket.exists('out/lenient.mp4')).toBe(true)
  })
})
