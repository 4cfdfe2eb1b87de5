import {access} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getQueueStatus} from '../../src/lib/server-client/server-api.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {useScratchDir} from '../render/support.js'
import {spawnServe, type ServeProcess} from './support/spawn-serve.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const cleanEnv = {ENGINE_SERVER_TOKEN: undefined, PRODUCER_MAX_CONCURRENT_RENDERS: undefined}

describe('engine serve (CLI)', PROCESSES, () => {
  it('refuses a non-loopback --host without a token, and an invalid PRODUCER_MAX_CONCURRENT_RENDERS', async () => {
    const open = await runCli(['serve', '--host', '0.0.0.0', '--port', '0'], {env: cleanEnv})
    expect(open.code).toBe(1)
    expect(open.stderr).toMatch(/error \[INVALID_FLAG\]: --host 0\.0\.0\.0 is reachable from other machines, so the server needs a token: pass --token/)
    const badEnv = await runCli(['serve', '--port', '0'], {env: {...cleanEnv, PRODUCER_MAX_CONCURRENT_RENDERS: 'lots'}})
    expect(badEnv.code).toBe(1)
    expect(badEnv.stderr).toMatch(/error \[INVALID_CONFIG\]: PRODUCER_MAX_CONCURRENT_RENDERS: "lots" is not valid; set it to an integer from 1 to 10/)
  })

  describe('with engine render --server', () => {
    const scratch = useScratchDir()
    let serve: ServeProcess

    beforeAll(async () => {
      serve = await spawnServe(['--root', FIXTURES], {PRODUCER_MAX_CONCURRENT_RENDERS: '1'})
    })
    afterAll(() => serve?.stop())

    it('takes its concurrency from PRODUCER_MAX_CONCURRENT_RENDERS (the flag wins); on SIGTERM it removes its temporary outputs and exits 0', async () => {
      expect(await getQueueStatus({url: serve.url})).toEqual({maxConcurrentRenders: 1, activeRenders: 0, queuedRenders: 0})
      const other = await spawnServe(['--root', FIXTURES, '--max-concurrent-renders', '3'], {PRODUCER_MAX_CONCURRENT_RENDERS: '1'})
      const dir = /outputs in (\S+)\)/.exec(other.output())![1]
      await access(dir)
      expect((await getQueueStatus({url: other.url})).maxConcurrentRenders).toBe(3)
      expect(await other.stop()).toBe(0)
      await expect(access(dir)).rejects.toThrow()
    })

    it('renders on the server, streams progress as --json lines and downloads the result to --output', async () => {
      const output = join(scratch(), 'blue.mp4')
      const args = ['render', 'color.html', '--server', serve.url, '--fps', '10', '--quality', 'draft', '--workers', '1']
      const result = await runCli([...args, '--variables', '{"color": "#0000ff"}', '-o', output, '--json'], {env: cleanEnv})
      expect(result.stderr).toBe('')
      expect(result.code).toBe(0)
      const events = result.stdout.trim().split('\n').map((line) => JSON.parse(line))
      expect(events.some((event) => event.type === 'progress' && event.totalFrames === 10)).toBe(true)
      expect(events.at(-1)).toMatchObject({type: 'done', output, totalFrames: 10, durationSeconds: 1, hdr: null})
      // The same events as a local render: the plan, announced once it is known.
      expect(events.filter((event) => event.type === 'start')).toEqual([
        expect.objectContaining({composition: 'color.html', output, format: 'mp4', width: 320, height: 180, fps: '10', totalFrames: 10, workers: 1, variables: expect.objectContaining({color: '#0000ff'})}),
      ])
      expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '10'})
      expect(near(await pixelAt(output, 3, 200, 100), {r: 0, g: 0, b: 255})).toBe(true)

      const frames = join(scratch(), 'frames')
      const sequence = await runCli([...args, '--format', 'png-sequence', '-o', frames, '--quiet'], {env: cleanEnv})
      expect(sequence.code).toBe(0)
      await access(join(frames, 'frame_000009.png'))
      expect(near(await pixelAt(join(frames, 'frame_000000.png'), 0, 200, 100), {r: 128, g: 128, b: 128})).toBe(true)
    })

    it('reports what the server refuses, and settings it cannot honour, as errors', async () => {
      const outside = await runCli(['render', '../../package.json', '--server', serve.url, '-o', join(scratch(), 'x.mp4')], {env: cleanEnv})
      expect(outside.code).toBe(1)
      expect(outside.stderr).toMatch(/error \[PATH_OUTSIDE_ROOT\]: body field "composition": "..\/..\/package.json" is outside the server root/)
      const gpu = await runCli(['render', 'color.html', '--server', serve.url, '--gpu'], {env: cleanEnv})
      expect(gpu.stderr).toMatch(/error \[INVALID_FLAG\]: --gpu cannot be sent to a producer server/)
      const down = await runCli(['render', 'color.html', '--server', 'http://127.0.0.1:9', '-o', join(scratch(), 'y.mp4')], {env: cleanEnv})
      expect(down.stderr).toMatch(/error \[SERVER_UNAVAILABLE\]: could not reach the producer server at http:\/\/127\.0\.0\.1:9/)
    })
  })
})
