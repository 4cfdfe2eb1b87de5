import {execFile} from 'node:child_process'
import {readFile, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {beforeAll, describe, expect, it} from 'vitest'
import {countOutputFrames} from '../../src/lib/encode/count-output-frames.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {isoVideoSampleCount} from '../../src/lib/encode/iso-sample-count.js'
import {probeFrameCount} from '../../src/lib/encode/probe-frame-count.js'
import {ffmpeg, useScratchDir} from './support/encode-fixtures.js'

const exec = promisify(execFile)

describe('counting an MP4 or MOV output frames from its sample table', () => {
  const scratch = useScratchDir()
  let dir: string
  let ffmpegPath: string
  let ffprobePath: string
  const encode = async (name: string, frames: number, extra: string[]) => {
    const file = join(dir, name)
    // A sine tone as well: the audio track comes first, so the video track is not the first trak.
    await exec(ffmpegPath, ['-v', 'error', '-f', 'lavfi', '-i', 'sine=d=0.3', '-f', 'lavfi', '-i', 'testsrc=size=64x36:rate=30:d=1', '-frames:v', String(frames), '-map', '0:a', '-map', '1:v', '-c:v', 'libx264', '-preset', 'ultrafast', ...extra, '-y', file])
    return file
  }
  let plain: string
  let faststart: string
  let mov: string
  let fragmented: string
  beforeAll(async () => {
    dir = scratch()
    ;({ffmpegPath, ffprobePath} = await ffmpeg())
    plain = await encode('plain.mp4', 17, [])
    faststart = await encode('faststart.mp4', 23, ['-movflags', '+faststart'])
    mov = await encode('clip.mov', 9, [])
    fragmented = await encode('fragmented.mp4', 12, ['-movflags', 'frag_keyframe+empty_moov'])
  })

  it('gives the packet count ffprobe gives, whether the movie header is at the start or the end', async () => {
    for (const [file, frames] of [[plain, 17], [faststart, 23], [mov, 9]] as const) {
      expect(await isoVideoSampleCount(file)).toBe(frames)
      expect(await probeFrameCount(ffprobePath, file)).toBe(frames)
    }
  })

  it('leaves a fragmented movie, a truncated file and a file of another kind to ffprobe', async () => {
    expect(await isoVideoSampleCount(fragmented)).toBeUndefined()
    const bytes = await readFile(faststart)
    const truncated = join(dir, 'truncated.mp4')
    await writeFile(truncated, bytes.subarray(0, 200))
    expect(await isoVideoSampleCount(truncated)).toBeUndefined()
    // Cut short after its movie header: the header still names every sample, the file lacks some.
    const cut = join(dir, 'cut.mp4')
    await writeFile(cut, bytes.subarray(0, bytes.length - 100))
    expect(await isoVideoSampleCount(cut)).toBeUndefined()
    const text = join(dir, 'text.mp4')
    await writeFile(text, 'not a movie at all, just words')
    expect(await isoVideoSampleCount(text)).toBeUndefined()
    expect(await isoVideoSampleCount(join(dir, 'missing.mp4'))).toBeUndefined()
    // The output check still counts the fragmented movie, through ffprobe.
    expect(await countOutputFrames(getFormat('mp4'), async () => ffprobePath, fragmented)).toBe(12)
  })

  it('is what the output check of an mp4 counts, without ffprobe', async () => {
    const noProbe = async () => {
      throw new Error('ffprobe was asked for')
    }
    expect(await countOutputFrames(getFormat('mp4'), noProbe, faststart)).toBe(23)
    expect(await countOutputFrames(getFormat('mov'), noProbe, mov)).toBe(9)
  })
})
