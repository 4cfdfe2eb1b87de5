import {existsSync} from 'node:fs'
import {mkdtemp, rm, symlink} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {checkFormatEncoders} from '../../src/lib/encode/format-encoder-status.js'
import {listEncoders, parseEncoderList} from '../../src/lib/encode/list-encoders.js'
import {resolveFfmpeg} from '../../src/lib/encode/resolve-ffmpeg.js'
import {staticFfmpegBuild} from '../../src/lib/encode/static-ffmpeg.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {skipWithout} from '../support/capabilities.js'

describe('resolveFfmpeg', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-ffmpeg-path-'))
    await symlink('/usr/bin/ffmpeg', join(dir, 'ffmpeg'))
    await symlink('/usr/bin/ffprobe', join(dir, 'ffprobe'))
  })
  afterAll(() => rm(dir, {recursive: true, force: true}))

  it('finds ffmpeg and ffprobe on PATH and reads the version', async () => {
    const info = await resolveFfmpeg({env: {PATH: `/nonexistent:${dir}`}})
    expect(info).toMatchObject({ffmpegPath: join(dir, 'ffmpeg'), ffprobePath: join(dir, 'ffprobe'), source: 'path'})
    expect(info.version).toMatch(/^\d+\.\d+/)
  })

  it('prefers ENGINE_FFMPEG_PATH / ENGINE_FFPROBE_PATH over PATH, and an explicit option over both', async () => {
    const fromEnv = await resolveFfmpeg({env: {PATH: '/usr/bin', ENGINE_FFMPEG_PATH: join(dir, 'ffmpeg'), ENGINE_FFPROBE_PATH: join(dir, 'ffprobe')}})
    expect(fromEnv).toMatchObject({ffmpegPath: join(dir, 'ffmpeg'), ffprobePath: join(dir, 'ffprobe'), source: 'env'})
    const explicit = await resolveFfmpeg({ffmpegPath: '/usr/bin/ffmpeg', env: {PATH: '', ENGINE_FFMPEG_PATH: join(dir, 'ffmpeg')}})
    // ffprobe is taken from next to the chosen ffmpeg: the same build.
    expect(explicit).toMatchObject({ffmpegPath: '/usr/bin/ffmpeg', ffprobePath: '/usr/bin/ffprobe', source: 'option'})
  })

  it('a broken ENGINE_FFMPEG_PATH is an error naming it, never silently replaced by PATH', async () => {
    await expect(resolveFfmpeg({env: {PATH: '/usr/bin', ENGINE_FFMPEG_PATH: '/nope/ffmpeg'}})).rejects.toMatchObject({
      code: 'FFMPEG_NOT_FOUND',
      message: expect.stringContaining('ENGINE_FFMPEG_PATH="/nope/ffmpeg"'),
    })
  })

  // Installed with engine as optional dependencies (the Lambda bundle's binaries); the packed-install test covers a machine without them.
  it.skipIf(!staticFfmpegBuild())(
    'without ffmpeg on PATH uses the static build npm installed beside engine, with its own ffprobe',
    async (context) => {
      const build = staticFfmpegBuild()!
      skipWithout(context, 'static-ffmpeg', existsSync(join(REPO_ROOT, 'node_modules', build.ffmpeg.name)), `${build.ffmpeg.name}, an optional dependency scripts/setup.sh installs`)
      const info = await resolveFfmpeg({env: {PATH: dir + '-missing', ENGINE_CACHE_DIR: dir}})
      expect(info).toMatchObject({
        source: 'npm-package',
        ffmpegPath: join(REPO_ROOT, 'node_modules', build.ffmpeg.name, 'ffmpeg'),
        ffprobePath: join(REPO_ROOT, 'node_modules', build.ffprobe.name, 'ffprobe'),
      })
    },
  )
})

describe('encoders', () => {
  it('lists the encoders of this ffmpeg build', async () => {
    const encoders = await listEncoders('/usr/bin/ffmpeg')
    for (const name of ['libx264', 'libvpx-vp9', 'prores_ks', 'gif', 'png', 'mjpeg']) expect(encoders.has(name)).toBe(true)
    expect(encoders.has('=')).toBe(false)
  })

  it('parses the -encoders table, skipping its legend', () => {
    const text = ' V..... = Video\n ------\n V....D libx264              libx264 H.264\n A....D aac                  AAC\n'
    expect([...parseEncoderList(text)]).toEqual(['libx264', 'aac'])
  })

  it('tells engine doctor which encoders each format needs and whether they are here', async () => {
    const status = await checkFormatEncoders('/usr/bin/ffmpeg')
    expect(status).toEqual([
      {format: 'mp4', required: ['libx264'], missing: [], available: true},
      {format: 'mov', required: ['prores_ks'], missing: [], available: true},
      {format: 'webm', required: ['libvpx-vp9'], missing: [], available: true},
      {format: 'gif', required: ['gif', 'png'], missing: [], available: true},
      {format: 'png-sequence', required: [], missing: [], available: true},
      {format: 'hls', required: ['libx264'], missing: [], available: true},
    ])
  })
})
