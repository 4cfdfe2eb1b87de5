import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {HeadObjectCommand} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ffprobe, near, pixelAt, probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'

/** Outputs of several files through the serverless door: a playlist's segments, a captions sidecar. */
describe('lambda render: files beside the output', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-hls-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('stores the playlist and every segment it names, with HLS content types, under the output key\'s folder', async () => {
    const rendered = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'tiny'), '--format', 'hls', '--wait', '--output-key', 'streams/tiny.m3u8'], {env: stack.env})
    expect(rendered.code, rendered.stderr).toBe(0)
    expect((await stack.bucket.listKeys('streams/')).sort()).toEqual(['streams/tiny.m3u8', 'streams/tiny_00000.ts'])
    for (const key of ['streams/tiny.m3u8', 'streams/tiny_00000.ts']) await stack.bucket.downloadFile(key, join(scratch, key.split('/')[1]))
    expect(await readFile(join(scratch, 'tiny.m3u8'), 'utf8')).toMatch(/^tiny_00000\.ts$/m)
    // 0.2 s at 30 fps, read through the playlist.
    expect(await probeVideoStream(join(scratch, 'tiny.m3u8'))).toMatchObject({codec_name: 'h264', nb_read_frames: '6'})
    const head = async (key: string) => (await stack.bucket.s3.send(new HeadObjectCommand({Bucket: stack.bucket.bucketName, Key: key}))).ContentType
    expect(await head('streams/tiny.m3u8')).toBe('application/vnd.apple.mpegurl')
    expect(await head('streams/tiny_00000.ts')).toBe('video/mp2t')
  })

  it('--captions-track embeds the cues in the mp4; --captions-sidecar stores them beside it as WebVTT', async () => {
    const rendered = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'captions'), '--captions-track', '--captions-sidecar', '--wait', '--output-key', 'subs/cap.mp4'], {env: stack.env})
    expect(rendered.code, rendered.stderr).toBe(0)
    expect((await stack.bucket.listKeys('subs/')).sort()).toEqual(['subs/cap.mp4', 'subs/cap.vtt'])
    await stack.bucket.downloadFile('subs/cap.vtt', join(scratch, 'cap.vtt'))
    expect(await readFile(join(scratch, 'cap.vtt'), 'utf8')).toBe('WEBVTT\n\n00:00:00.100 --> 00:00:00.300\nOn the cloud\n')
    await stack.bucket.downloadFile('subs/cap.mp4', join(scratch, 'cap.mp4'))
    const streams = (await ffprobe(join(scratch, 'cap.mp4'), ['-show_streams'])).streams as {codec_type: string; codec_name: string}[]
    expect(streams.map((stream) => [stream.codec_type, stream.codec_name])).toEqual([['video', 'h264'], ['subtitle', 'mov_text']])
    // Drawn too: white during the cue (frames 3-8 at 30 fps), the black page after it.
    expect(near(await pixelAt(join(scratch, 'cap.mp4'), 5, 290, 150), {r: 255, g: 255, b: 255})).toBe(true)
    expect(near(await pixelAt(join(scratch, 'cap.mp4'), 9, 290, 150), {r: 0, g: 0, b: 0})).toBe(true)
  })
})
