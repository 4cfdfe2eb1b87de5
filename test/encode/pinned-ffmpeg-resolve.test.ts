import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {functionFfmpeg} from '../../packages/lambda/src/lib/lambda/runtime/function-ffmpeg.js'
import {checkFfmpeg} from '../../src/lib/doctor/check-ffmpeg.js'
import {hostFfmpegArch} from '../../src/lib/encode/pinned-ffmpeg.js'
import {resolveRenderFfmpeg} from '../../src/lib/profile/resolve-render-ffmpeg.js'
import {seedPinnedFfmpeg} from '../support/pinned-ffmpeg.js'

const arch = hostFfmpegArch()!

describe('which ffmpeg a render encodes with: the pinned build under --profile deterministic', () => {
  let scratch: string
  let seeded: NodeJS.ProcessEnv
  let empty: NodeJS.ProcessEnv
  let directory: string

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-pinned-resolve-'))
    directory = await seedPinnedFfmpeg(join(scratch, 'seeded'), arch)
    seeded = {PATH: process.env.PATH, ENGINE_CACHE_DIR: join(scratch, 'seeded')}
    empty = {PATH: process.env.PATH, ENGINE_CACHE_DIR: join(scratch, 'empty')}
  })
  afterAll(async () => {
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('the profile takes the pinned build from the cache before PATH, and says nothing', async () => {
    const {ffmpeg, notices} = await resolveRenderFfmpeg({profile: 'deterministic'}, seeded)
    expect(ffmpeg).toMatchObject({ffmpegPath: join(directory, 'ffmpeg'), ffprobePath: join(directory, 'ffprobe'), source: 'pinned'})
    expect(notices).toEqual([])
  })

  it('without it, the profile renders with the machine\'s ffmpeg and one notice naming `engine ffmpeg install`', async () => {
    const {ffmpeg, notices} = await resolveRenderFfmpeg({profile: 'deterministic'}, empty)
    expect(ffmpeg.source).toBe('path')
    expect(notices).toHaveLength(1)
    expect(notices[0].code).toBe('profile-ffmpeg-mismatch')
    expect(notices[0].message).toContain(`encodes with the serverless function's ffmpeg (7.0.2-static), but ${ffmpeg.ffmpegPath} is ${ffmpeg.version}`)
    expect(notices[0].message).toContain('`engine ffmpeg install`')
    expect(notices[0].message).toContain('ENGINE_FFMPEG_MIRROR')
    // Inside the function the bundle's build is the function's, whatever its version.
    expect((await resolveRenderFfmpeg({profile: 'deterministic'}, {...empty, LAMBDA_TASK_ROOT: scratch})).notices).toEqual([])
    // A named ffmpeg wins over the cache, with the same notice.
    const named = await resolveRenderFfmpeg({profile: 'deterministic'}, {...seeded, ENGINE_FFMPEG_PATH: '/usr/bin/ffmpeg'})
    expect(named.ffmpeg).toMatchObject({ffmpegPath: '/usr/bin/ffmpeg', source: 'env'})
    expect(named.notices[0].message).toContain('/usr/bin/ffmpeg (ENGINE_FFMPEG_PATH) is')
  })

  it('engine doctor says whether the ffmpeg in use is the function\'s build, and where the pinned one is', async () => {
    const saved = process.env.ENGINE_CACHE_DIR
    try {
      process.env.ENGINE_CACHE_DIR = seeded.ENGINE_CACHE_DIR
      const [ffmpeg] = await checkFfmpeg()
      expect(ffmpeg.summary).toContain(`not the serverless function's build (7.0.2-static, in the cache at ${join(directory, 'ffmpeg')}: --profile deterministic encodes with that one)`)
      expect(ffmpeg.info).toMatchObject({functionBuild: {version: '7.0.2-static', used: false, installed: join(directory, 'ffmpeg')}})
      // The local stack's function encodes with it too, as the default bundle would.
      expect(await functionFfmpeg()).toMatchObject({ffmpegPath: join(directory, 'ffmpeg'), source: 'pinned'})
      process.env.ENGINE_CACHE_DIR = empty.ENGINE_CACHE_DIR
      const [missing] = await checkFfmpeg()
      expect(missing.summary).toMatch(/not the serverless function's build \(7\.0\.2-static\); .*`engine ffmpeg install`/)
    } finally {
      if (saved === undefined) delete process.env.ENGINE_CACHE_DIR
      else process.env.ENGINE_CACHE_DIR = saved
    }
  })
})
