import {mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {audioSamples, ffmpeg, onsetSeconds} from '../media/media-support.js'
import {decodedFrameHashes, ffprobe} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'

const COMPOSITION = `<!doctype html>
<html>
<head><style>html, body { margin: 0; background: #000; } video { position: absolute; left: 0; top: 0; width: 320px; height: 180px; }</style></head>
<body>
  <div id="root" data-composition-id="media" data-width="320" data-height="180" data-duration="2">
    <video src="media/clip.mp4" data-start="0" data-duration="2"></video>
    <audio src="media/beep.wav" data-start="0.5"></audio>
  </div>
</body>
</html>`

async function streamDuration(file: string, stream: string): Promise<number> {
  const result = await ffprobe(file, ['-select_streams', stream, '-show_entries', 'stream=duration'])
  return Number((result.streams as {duration: string}[])[0].duration)
}

describe('media through the serverless stack', () => {
  let stack: RunningStack
  let project: string
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'engine-lambda-media-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(project, '.cache')})
    await mkdir(join(project, 'site', 'media'), {recursive: true})
    await writeFile(join(project, 'site', 'index.html'), COMPOSITION)
    await Promise.all([
      ffmpeg(['-f', 'lavfi', '-i', 'testsrc2=size=320x180:rate=30:duration=2', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '12', join(project, 'site', 'media', 'clip.mp4')]),
      ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.3', '-af', 'volume=0.5', join(project, 'site', 'media', 'beep.wav')]),
    ])
    stack = await sharedStack()
  })
  afterAll(async () => {
    await stack?.stop()
    restoreEnv?.()
    await rm(project, {recursive: true, force: true})
  })

  it('renders video frames and audio in chunks exactly as a local render does', async () => {
    const started = await runCli(['lambda', 'render', join(project, 'site'), '--chunk-size', '30', '--crf', '0', '--output-key', 'out/media.mp4'], {env: stack.env})
    expect(started.code, started.stderr).toBe(0)
    const renderId = /^renderId: (\S+)$/m.exec(started.stdout)![1]
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(60_000)})
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {done: 2, total: 2}})

    const chunked = join(project, 'chunked.mp4')
    await stack.bucket.downloadFile('out/media.mp4', chunked)
    const local = await renderComposition({
      composition: join(project, 'site', 'index.html'),
      options: resolveRenderOptions({crf: 0, workers: 1, profile: 'deterministic', output: join(project, 'local.mp4')}),
    })
    const [chunkedFrames, localFrames] = await Promise.all([decodedFrameHashes(chunked), decodedFrameHashes(local.output)])
    expect(chunkedFrames).toHaveLength(60)
    expect(chunkedFrames).toEqual(localFrames)
    expect(new Set(chunkedFrames).size).toBe(60)

    expect(Math.abs(onsetSeconds(await audioSamples(chunked)) - 0.5)).toBeLessThan(0.021)
    expect(await streamDuration(chunked, 'a:0')).toBeCloseTo(2, 3)
    expect(await streamDuration(chunked, 'v:0')).toBeCloseTo(2, 3)
  })
})
