import {readFile, stat, truncate, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {readManifest, renderBatch, type BatchEvent} from '../../src/lib/batch/index.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {probeVideoStream} from '../support/media.js'
import {CARD, options, useScratchDir, writeRows} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

const ROWS = [{title: 'Ada'}, {title: 'Bo'}, {title: 'Cy'}, {title: 'Di'}]

describe('renderBatch --resume with real outputs', PROCESSES, () => {
  const scratch = useScratchDir()

  async function run(resume: boolean) {
    const dir = scratch()
    const events: BatchEvent[] = []
    const rendered: string[] = []
    await renderBatch({
      composition: CARD,
      batchFile: await writeRows(dir, ROWS),
      options: options({output: join(dir, 'out/{index}.mp4'), fps: 5, workers: 1}),
      resume,
      render: (request) => {
        rendered.push(String(request.variables?.title))
        return renderComposition(request)
      },
      onEvent: (event) => events.push(event),
      cwd: dir,
    })
    return {events, rendered, manifest: (await readManifest(join(dir, 'out/manifest.json')))!}
  }

  it('renders again a completed row whose file is missing, empty, cut short or replaced (its size differs from the one recorded); keeps the intact one', async () => {
    const first = await run(false)
    expect(first.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
    const totalFrames = first.manifest.rows[0].totalFrames!
    expect(totalFrames).toBeGreaterThan(2)
    const out = (index: number) => join(scratch(), `out/${index}.mp4`)
    const intact = await readFile(out(0))

    await writeFile(out(1), '')
    // Half the file: the frames at its end are gone (and the index with them).
    await truncate(out(2), Math.floor((await stat(out(2))).size / 2))
    await writeFile(out(3), 'not a video at all')

    const second = await run(true)
    expect(second.rendered).toEqual(['Bo', 'Cy', 'Di'])
    const warnings = second.events.filter((event) => event.type === 'warning').map((event) => (event as {message: string}).message)
    expect(warnings).toEqual([
      expect.stringMatching(/row 1 was completed but .*1\.mp4 is empty; rendering it again/),
      expect.stringMatching(/row 2 was completed but .*2\.mp4 has \d+ bytes, not the \d+ it was written with; rendering it again/),
      expect.stringMatching(/row 3 was completed but .*3\.mp4 has 18 bytes, not the \d+ it was written with; rendering it again/),
    ])
    expect(await readFile(out(0))).toEqual(intact)
    for (const index of [1, 2, 3]) expect(await probeVideoStream(out(index)), String(index)).toMatchObject({nb_read_frames: String(totalFrames)})
    expect(second.manifest.rows.map((row) => row.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
  })
})
