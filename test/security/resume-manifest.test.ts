import {spawnSync} from 'node:child_process'
import {existsSync} from 'node:fs'
import {copyFile, mkdtemp, readFile, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {CARD, writeRows} from '../batch/support.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {probeVideoStream} from '../support/media.js'

// The probe: a manifest edited to name a file elsewhere made --resume count the row as
// completed, so the batch "finished" with that row's output missing from the output folder.
describe('--resume never trusts the output path a manifest names', () => {
  let dir: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-resume-security-'))
  })
  afterAll(async () => {
    await rm(dir, {recursive: true, force: true})
  })

  function engine(...args: string[]) {
    return spawnSync(process.execPath, [join(REPO_ROOT, 'bin/run.js'), 'render', CARD, '--batch', 'rows.json', '-o', 'out/{index}-{title}.mp4', '--fps', '10', '--quality', 'draft', ...args], {
      cwd: dir,
      encoding: 'utf8',
    })
  }

  it('a completed row whose manifest entry was pointed outside the output folder is rendered again where the template puts it', async () => {
    await writeRows(dir, [{title: 'Ada'}, {title: 'Bo'}])
    const first = engine()
    expect(first.status, first.stderr).toBe(0)

    // The same bytes outside the output folder, so that a size check alone would pass there.
    const outside = join(dir, 'elsewhere.mp4')
    await copyFile(join(dir, 'out/0-Ada.mp4'), outside)
    await rm(join(dir, 'out/0-Ada.mp4'))
    const manifest = join(dir, 'out/manifest.json')
    const edited = (await readFile(manifest, 'utf8')).replace('"output":"0-Ada.mp4"', '"output":"../elsewhere.mp4"')
    expect(edited).toContain('../elsewhere.mp4')
    await writeFile(manifest, edited)
    const outsideBefore = await stat(outside)

    const resumed = engine('--resume', '--json')
    expect(resumed.status, resumed.stderr).toBe(0)
    const events = resumed.stdout.trim().split('\n').map((line) => JSON.parse(line) as {type: string; code?: string; message?: string})
    expect(events).toContainEqual(expect.objectContaining({type: 'warning', code: 'output-missing', message: expect.stringContaining('row 0 was completed but')}))
    expect(existsSync(join(dir, 'out/0-Ada.mp4'))).toBe(true)
    expect(Number((await probeVideoStream(join(dir, 'out/0-Ada.mp4'))).nb_read_frames)).toBeGreaterThan(0)
    const after = JSON.parse(await readFile(manifest, 'utf8')) as {rows: {output: string; status: string}[]}
    expect(after.rows[0]).toMatchObject({output: '0-Ada.mp4', status: 'completed'})
    expect((await stat(outside)).mtimeMs).toBe(outsideBefore.mtimeMs)
  })
})
