import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {HeadObjectCommand} from '@aws-sdk/client-s3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'

/** A multi-file output through the serverless door: the playlist's segments are stored beside it. */
describe('lambda render --format hls', PROCESSES, () => {
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
})
