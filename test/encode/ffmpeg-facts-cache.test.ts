import {appendFile, chmod, mkdir, readdir, readFile, symlink, utimes, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeEach, describe, expect, it, vi} from 'vitest'
import {useScratchDir} from '../support/scratch-dir.js'

// ffmpeg behind a wrapper that writes down each start, so a test sees which facts were probed.
const wrapperScript = (calls: string) => `#!/bin/sh\necho "$*" >> '${calls}'\nexec /usr/bin/ffmpeg "$@"\n`

/** The modules as a new process loads them: nothing remembered in memory. */
async function freshModules() {
  vi.resetModules()
  const {resolveFfmpeg} = await import('../../src/lib/encode/resolve-ffmpeg.js')
  const {listBitstreamFilters} = await import('../../src/lib/encode/list-bitstream-filters.js')
  return {resolveFfmpeg, listBitstreamFilters}
}

describe('ffmpeg facts cached on disk by the binary they describe', () => {
  const scratch = useScratchDir('engine-ffmpeg-facts-', 'test')
  let dir: string
  let ffmpeg: string
  let callsFile: string
  let cache: string
  let env: NodeJS.ProcessEnv
  let versionFile: string

  const calls = async (flag: string) =>
    (await readFile(callsFile, 'utf8').catch(() => '')).split('\n').filter((line) => line === `-hide_banner ${flag}`).length
  const resolveFresh = async () => (await freshModules()).resolveFfmpeg({ffmpegPath: ffmpeg, env})

  beforeEach(async () => {
    dir = scratch()
    ffmpeg = join(dir, 'bin', 'ffmpeg')
    callsFile = join(dir, 'calls')
    cache = join(dir, 'cache')
    env = {PATH: '', ENGINE_CACHE_DIR: cache}
    versionFile = join(cache, 'probes', 'ffmpeg-version.json')
    await mkdir(join(dir, 'bin'))
    await writeFile(ffmpeg, wrapperScript(callsFile))
    await chmod(ffmpeg, 0o755)
    await symlink('/usr/bin/ffprobe', join(dir, 'bin', 'ffprobe'))
  })

  it('a new process reads the version and the bitstream filters from ENGINE_CACHE_DIR without starting ffmpeg', async () => {
    const first = await resolveFresh()
    expect(first.version).toMatch(/^\d+\.\d+/)
    expect((await (await freshModules()).listBitstreamFilters(ffmpeg, env)).has('setts')).toBe(true)
    expect([await calls('-version'), await calls('-bsfs')]).toEqual([1, 1])

    const again = await resolveFresh()
    expect(again).toEqual(first)
    const filters = await (await freshModules()).listBitstreamFilters(ffmpeg, env)
    expect(filters.has('setts')).toBe(true)
    expect([await calls('-version'), await calls('-bsfs')]).toEqual([1, 1])
    expect(JSON.parse(await readFile(versionFile, 'utf8'))[ffmpeg]).toMatchObject({facts: first.version})
  })

  it('a changed binary is probed again: a new modification time, then a new size', async () => {
    await resolveFresh()
    const later = new Date(Date.now() + 60_000)
    await utimes(ffmpeg, later, later)
    await resolveFresh()
    expect(await calls('-version')).toBe(2)
    await appendFile(ffmpeg, '# upgraded\n')
    await utimes(ffmpeg, later, later)
    await resolveFresh()
    expect(await calls('-version')).toBe(3)
    await resolveFresh()
    expect(await calls('-version')).toBe(3)
  })

  it('a corrupt cache file, or an entry of the wrong shape, is ignored and rewritten', async () => {
    await mkdir(join(cache, 'probes'), {recursive: true})
    await writeFile(versionFile, '{"truncated": ')
    const info = await resolveFresh()
    expect(await calls('-version')).toBe(1)
    const rewritten = JSON.parse(await readFile(versionFile, 'utf8'))
    expect(rewritten[ffmpeg].facts).toBe(info.version)

    await writeFile(versionFile, JSON.stringify({[ffmpeg]: {...rewritten[ffmpeg], facts: 42}}))
    expect((await resolveFresh()).version).toBe(info.version)
    expect(await calls('-version')).toBe(2)
    expect(JSON.parse(await readFile(versionFile, 'utf8'))[ffmpeg].facts).toBe(info.version)
    expect((await readdir(join(cache, 'probes'))).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })

  it('a binary that does not run is FFMPEG_NOT_FOUND, every time, and leaves no entry', async () => {
    await writeFile(ffmpeg, `#!/bin/sh\necho "$*" >> '${callsFile}'\necho 'ffmpeg: error while loading shared libraries: libavdevice.so.59' >&2\nexit 127\n`)
    for (let attempt = 1; attempt <= 2; attempt++) {
      await expect(resolveFresh()).rejects.toMatchObject({code: 'FFMPEG_NOT_FOUND', message: expect.stringContaining(`ffmpeg path "${ffmpeg}" does not run`)})
      expect(await calls('-version')).toBe(attempt)
    }
    await expect(readFile(versionFile, 'utf8')).rejects.toMatchObject({code: 'ENOENT'})
    await expect((await freshModules()).listBitstreamFilters(ffmpeg, env)).rejects.toMatchObject({code: 'FFMPEG_NOT_FOUND'})
    await expect(readFile(join(cache, 'probes', 'ffmpeg-bitstream-filters.json'), 'utf8')).rejects.toMatchObject({code: 'ENOENT'})

    // Repaired, it is used at once: the failure was not remembered, on disk or in memory.
    const {resolveFfmpeg} = await freshModules()
    await expect(resolveFfmpeg({ffmpegPath: ffmpeg, env})).rejects.toMatchObject({code: 'FFMPEG_NOT_FOUND'})
    await writeFile(ffmpeg, wrapperScript(callsFile))
    expect((await resolveFfmpeg({ffmpegPath: ffmpeg, env})).version).toMatch(/^\d+\.\d+/)
  })

  it('a cache directory that cannot be written costs a probe per process, never the render', async () => {
    const blocker = join(dir, 'not-a-directory')
    await writeFile(blocker, '')
    env = {PATH: '', ENGINE_CACHE_DIR: join(blocker, 'cache')}
    expect((await resolveFresh()).version).toMatch(/^\d+\.\d+/)
    expect((await resolveFresh()).version).toMatch(/^\d+\.\d+/)
    expect(await calls('-version')).toBe(2)
  })
})
