import {copyFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch} from '../../src/lib/batch/index.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'
import {FIXTURES, useScratchDir} from './support.js'
import {RenderCache} from '../../src/lib/render-cache/render-cache.js'
import '../support/register-builtin-plugins.js'

/** throwing.html: a decorative script that throws once at load, and a frame callback that throws once later on. */

describe('--page-errors fail|warn', PROCESSES, () => {
  const scratch = useScratchDir()
  let composition: string

  beforeAll(async () => {
    composition = join(scratch(), 'throwing.html')
    await copyFile(join(FIXTURES, 'throwing.html'), composition)
  })

  it('fails the render on the first uncaught error by default', async () => {
    await expect(renderComposition({composition, options: resolveRenderOptions({output: join(scratch(), 'fail.mp4'), scale: 0.5, fps: 10})})).rejects.toMatchObject({
      code: 'PAGE_ERROR',
      message: expect.stringContaining("reading 'start'"),
    })
  })

  it('warn: renders every frame and reports each error once, with its script location, from two workers', async () => {
    const events: RenderEvent[] = []
    const output = join(scratch(), 'warn.mp4')
    await renderComposition({composition, options: resolveRenderOptions({output, scale: 0.5, fps: 10, workers: 2, quality: 'draft', pageErrors: 'warn'}), onEvent: (event) => events.push(event)})
    expect(Number((await probeVideoStream(output)).nb_read_frames)).toBe(4)
    const warnings = events.filter((event) => event.type === 'warning' && event.code === 'page-error')
    expect(warnings).toEqual([
      expect.objectContaining({message: expect.stringMatching(/reading 'start'.*\(at throwing\.html:6\)/), detail: expect.objectContaining({file: 'throwing.html', line: 6})}),
      expect.objectContaining({message: expect.stringMatching(/late decoration failed \(at throwing\.html:1[0-9]\)/)}),
    ])
  })

  it('warn: a render whose page threw is not stored in the render cache (a hit would replay no warnings)', async () => {
    const cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: 1024 ** 3})
    const render = async (name: string) => {
      const events: RenderEvent[] = []
      const result = await renderComposition({composition, options: resolveRenderOptions({output: join(scratch(), name), scale: 0.5, fps: 10, quality: 'draft', pageErrors: 'warn'}), cache, onEvent: (event) => events.push(event)})
      return {cached: result.cached === true, pageErrors: events.filter((event) => event.type === 'warning' && event.code === 'page-error').length}
    }
    expect(await render('first.mp4')).toEqual({cached: false, pageErrors: 2})
    expect(await render('second.mp4')).toEqual({cached: false, pageErrors: 2})
  })

  it('warn: a batch row completes and carries the errors in its manifest warnings (code page-error)', async () => {
    const rows = join(scratch(), 'rows.json')
    await writeFile(rows, '[{}]')
    const summary = await renderBatch({
      composition,
      batchFile: rows,
      options: resolveRenderOptions({output: join(scratch(), 'batch', '{index}.mp4'), scale: 0.5, fps: 10, quality: 'draft', pageErrors: 'warn'}),
      render: renderComposition,
    })
    const manifest = await readManifest(summary.manifest)
    expect(manifest?.rows[0]).toMatchObject({status: 'completed', warnings: [expect.objectContaining({code: 'page-error', detail: expect.objectContaining({line: 6})}), expect.objectContaining({code: 'page-error'})]})
  })

  it('the CLI takes --page-errors warn and prints the warnings in --json', async () => {
    const result = await runCli(['render', composition, '-o', join(scratch(), 'cli.mp4'), '--scale', '0.5', '--fps', '10', '--quality', 'draft', '--page-errors', 'warn', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as RenderEvent)
    expect(events.filter((event) => event.type === 'warning' && event.code === 'page-error')).toHaveLength(2)
    const bad = await runCli(['render', composition, '--page-errors', 'ignore'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/fail, warn|fail.*warn/)
  })
})
