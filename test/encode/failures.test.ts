import {chmod, readdir, stat, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import {probeFrameCount} from '../../src/lib/encode/probe-frame-count.js'
import {probeMedia} from '../../src/lib/media/probe-media.js'
import {openSegmentEncoder} from '../../src/lib/encode/segment-encoder.js'
import {encodeSegments, ffmpeg, makeFrames, useScratchDir, testPlan} from './support/encode-fixtures.js'

const exists = (path: string) => stat(path).then(() => true, () => false)

describe('failures leave nothing behind', () => {
  const scratch = useScratchDir()
  let dir: string
  let frames: Buffer[]
  beforeAll(async () => {
    dir = scratch()
    frames = await makeFrames({count: 10, imageFormat: 'jpeg'})
  })

  it('a failed assembly leaves no file at the output path, and an existing output untouched', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 10})
    const segments = await encodeSegments(plan, frames, [5, 5], join(dir, 'work-broken'), info)
    await writeFile(segments[1].path, 'not an mp4')
    const output = join(dir, 'out', 'broken.mp4')
    await expect(assembleOutput({plan, segments, outputPath: output, ffmpeg: info})).rejects.toMatchObject({code: 'ENCODE_FAILED'})
    expect(await readdir(join(dir, 'out'))).toEqual([])

    const previous = join(dir, 'out', 'previous.mp4')
    await writeFile(previous, 'an earlier render')
    await expect(assembleOutput({plan, segments, outputPath: previous, ffmpeg: info})).rejects.toMatchObject({code: 'ENCODE_FAILED'})
    expect((await stat(previous)).size).toBe('an earlier render'.length)
    expect(await readdir(join(dir, 'out'))).toEqual(['previous.mp4'])
  })

  it('a cancelled assembly stops with CANCELLED and writes nothing', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'gif', totalFrames: 10})
    const segments = await encodeSegments(plan, frames, [10], join(dir, 'work-cancel'), info)
    const controller = new AbortController()
    const output = join(dir, 'cancelled', 'out.gif')
    const assembling = assembleOutput({plan, segments, outputPath: output, ffmpeg: info, signal: controller.signal})
    controller.abort()
    await expect(assembling).rejects.toMatchObject({code: 'CANCELLED'})
    expect(await readdir(join(dir, 'cancelled'))).toEqual([])
  })

  it('refuses segments that do not cover every frame exactly once', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 10})
    const segments = await encodeSegments(plan, frames, [5, 5], join(dir, 'work-gap'), info)
    const output = join(dir, 'gap.mp4')
    await expect(assembleOutput({plan, segments: [segments[1], segments[0]], outputPath: output, ffmpeg: info})).rejects.toMatchObject({code: 'INTERNAL'})
    await expect(assembleOutput({plan, segments: [segments[0]], outputPath: output, ffmpeg: info})).rejects.toMatchObject({code: 'INTERNAL'})
    expect(await exists(output)).toBe(false)
  })

  it('an image ffmpeg cannot decode fails the segment with ENCODE_FAILED and ffmpeg\'s own words', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 3})
    const outputPath = join(dir, 'garbage.mp4')
    const encoder = await openSegmentEncoder({plan, range: {start: 0, end: 3}, outputPath, ffmpeg: info})
    const written = (async () => {
      for (let i = 0; i < 3; i++) await encoder.write(Buffer.from('definitely not a jpeg'))
      await encoder.end()
    })()
    const error = await written.catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'ENCODE_FAILED', message: expect.stringContaining('encoding frames 0-2')})
    expect((error as Error).message.split('\n').length).toBeGreaterThan(1)
  })

  it('end() refuses a segment with missing frames and deletes it', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 10})
    const outputPath = join(dir, 'short.mp4')
    const encoder = await openSegmentEncoder({plan, range: {start: 0, end: 4}, outputPath, ffmpeg: info})
    await encoder.write(frames[0])
    await encoder.write(frames[1])
    await expect(encoder.end()).rejects.toMatchObject({code: 'INTERNAL', message: expect.stringContaining('received 2 images')})
    expect(await exists(outputPath)).toBe(false)
  })

  it('write() refuses an image beyond the range', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'gif', totalFrames: 10})
    const encoder = await openSegmentEncoder({plan, range: {start: 3, end: 4}, outputPath: join(dir, 'one.images'), ffmpeg: info})
    await encoder.write(frames[3])
    await expect(encoder.write(frames[4])).rejects.toMatchObject({code: 'INTERNAL'})
    await encoder.abort()
  })

  it('abort() kills ffmpeg mid-segment and removes the partial file', async () => {
    const info = await ffmpeg()
    const plan = testPlan({format: 'mp4', totalFrames: 10})
    for (const [format, path] of [['mp4', 'aborted.mp4'], ['gif', 'aborted.images'], ['png-sequence', 'aborted-frames']] as const) {
      const outputPath = join(dir, path)
      const images = format === 'png-sequence' ? await makeFrames({count: 3, imageFormat: 'png'}) : frames
      const encoder = await openSegmentEncoder({plan: {...plan, format}, range: {start: 0, end: 10}, outputPath, ffmpeg: info})
      for (let i = 0; i < 3; i++) await encoder.write(images[i])
      await encoder.abort()
      expect(await exists(outputPath)).toBe(false)
      await expect(encoder.write(images[0])).rejects.toMatchObject({code: 'CANCELLED'})
    }
  })

  it('an ffprobe that crashes (the npm ffprobe 4.1 on MPEG-TS) is named with its signal, not an empty message', async () => {
    const crashing = join(dir, 'ffprobe-crash')
    await writeFile(crashing, '#!/bin/sh\nkill -SEGV $$\n')
    await chmod(crashing, 0o755)
    await expect(probeFrameCount(crashing, join(dir, 'any.m3u8'))).rejects.toMatchObject({
      code: 'ENCODE_FAILED',
      message: expect.stringContaining(`(${crashing} was killed by SIGSEGV)`),
      details: {signal: 'SIGSEGV'},
    })
  })

  it('an ffprobe that crashes while probing a media element is named with its signal and what it printed', async () => {
    const crashing = join(dir, 'ffprobe-crash-talks')
    await writeFile(crashing, '#!/bin/sh\necho "mpegts: demuxer went astray" >&2\nkill -SEGV $$\n')
    await chmod(crashing, 0o755)
    const media = join(dir, 'clip.ts')
    await writeFile(media, 'not really a transport stream')
    await expect(probeMedia(crashing, media, '<video src="clip.ts">')).rejects.toMatchObject({
      code: 'MEDIA_FAILED',
      message: expect.stringMatching(new RegExp(`ffprobe crashed reading .*clip\\.ts: mpegts: demuxer went astray \\(${crashing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} was killed by SIGSEGV\\); point ENGINE_FFPROBE_PATH`)),
      details: {signal: 'SIGSEGV'},
    })
  })
})
