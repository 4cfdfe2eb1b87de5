import {existsSync} from 'node:fs'
import {copyFile, readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {readManifest, renderBatch} from '../../src/lib/batch/index.js'
import {renderStill} from '../../src/lib/index.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {RenderCache} from '../../src/lib/render-cache/render-cache.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {near, pixelAt} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {FIXTURES, useScratchDir} from '../render/support.js'
import {PROCESSES} from '../support/timeouts.js'

/** throwing.html throws at load (line 6) on a #336699 page. */
const PAGE = {r: 0x33, g: 0x66, b: 0x99}
const pageErrorsOf = (events: RenderEvent[]) => events.filter((event) => event.type === 'warning' && event.code === 'page-error')

describe('engine still --page-errors fail|warn', PROCESSES, () => {
  const scratch = useScratchDir()
  let composition: string

  beforeAll(async () => {
    composition = join(scratch(), 'throwing.html')
    await copyFile(join(FIXTURES, 'throwing.html'), composition)
  })

  it('fails the still on an uncaught error by default, and writes no image', async () => {
    const output = join(scratch(), 'fail.png')
    await expect(renderStill({composition, options: resolveRenderOptions({output, fps: 10})})).rejects.toMatchObject({code: 'PAGE_ERROR', message: expect.stringContaining("reading 'start'")})
    expect(existsSync(output)).toBe(false)
  })

  it('warn: writes the frame and reports the error with its script location; such a still is not cached', async () => {
    const cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: 1024 ** 3})
    const still = async (name: string, file = composition) => {
      const events: RenderEvent[] = []
      const result = await renderStill({composition: file, options: resolveRenderOptions({output: join(scratch(), name), fps: 10, pageErrors: 'warn'}), still: {frame: 2}, cache, onEvent: (event) => events.push(event)})
      return {result, events}
    }
    const first = await still('warn.png')
    expect(first.result).toMatchObject({frame: 2, width: 320, height: 180, format: 'png'})
    expect(near(await pixelAt(first.result.output, 0, 160, 90), PAGE)).toBe(true)
    expect(pageErrorsOf(first.events)).toEqual([
      expect.objectContaining({message: expect.stringMatching(/reading 'start'.*\(at throwing\.html:6\)/), detail: expect.objectContaining({file: 'throwing.html', line: 6})}),
    ])
    // Rendered again, not copied from the cache: the warning comes again.
    const second = await still('again.png')
    expect(second.result.cached).toBeUndefined()
    expect(pageErrorsOf(second.events)).toHaveLength(1)
    // The same cache does serve a still whose page did not throw.
    const clean = join(FIXTURES, 'blocks.html')
    await still('clean-1.png', clean)
    expect((await still('clean-2.png', clean)).result.cached).toBe(true)
  })

  it('warn: a still batch row completes and carries the error in its manifest warnings', async () => {
    const rows = join(scratch(), 'rows.json')
    await writeFile(rows, '[{}]')
    const options = resolveRenderOptions({output: join(scratch(), 'batch', '{index}.png'), fps: 10, pageErrors: 'warn'})
    const summary = await renderBatch({
      composition,
      batchFile: rows,
      options: {...options, format: 'png-sequence'},
      render: async (request) => {
        const result = await renderStill({...request, still: {frame: 0}})
        return {output: result.output, durationSeconds: 0, bytes: result.bytes}
      },
    })
    const manifest = await readManifest(summary.manifest)
    expect(manifest?.rows[0]).toMatchObject({status: 'completed', warnings: [expect.objectContaining({code: 'page-error', detail: expect.objectContaining({line: 6})})]})
    // The result sheet's warnings column names the code.
    const [header, row] = (await readFile(summary.results!, 'utf8')).trim().split('\n').map((line) => line.split(','))
    expect(row[header.indexOf('warnings')]).toBe('page-error')
    expect(row[header.indexOf('status')]).toBe('succeeded')
  })

  it('the CLI takes --page-errors warn (the warning in --json, the check pass too) and refuses other values', async () => {
    const output = join(scratch(), 'cli.png')
    // With the text check pass, which opens the page too and must go past its errors as well.
    const result = await runCli(['still', composition, '-o', output, '--page-errors', 'warn', '--on-overflow', 'warn', '--json'])
    expect(result.code, result.stderr).toBe(0)
    const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as RenderEvent)
    expect(pageErrorsOf(events)).toHaveLength(1)
    expect(events.at(-1)).toMatchObject({type: 'done', output})
    const bad = await runCli(['still', composition, '--page-errors', 'ignore'])
    expect(bad.code).not.toBe(0)
    expect(bad.stderr).toMatch(/fail, warn|fail.*warn/)
  })
})
