import {InvokeCommand, LambdaClient} from '@aws-sdk/client-lambda'
import {mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {clientConfig} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {ffprobe, near, pixelAt} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'
import {PROCESSES} from '../support/timeouts.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')

/** The project's band is red for the first second, green for the second, blue for the third. */
describe('engine lambda still: one direct invocation, no workflow', PROCESSES, () => {
  let stack: RunningStack
  let scratch: string
  const lambda = (args: string[]) => runCli(['lambda', ...args], {env: stack.env})

  beforeAll(async () => {
    ;[stack, scratch] = await Promise.all([sharedStack(), mkdtemp(join(tmpdir(), 'engine-lambda-still-'))])
  })
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('stores the frame on screen at --time under --output-key, saves it with -o, and starts no execution', async () => {
    const saved = join(scratch, 'thumb.png')
    const result = await lambda(['still', PROJECT, '--time', '1.5', '--variables', '{"accent":"#ff00ff"}', '--output-key', 'thumbs/ada.png', '-o', saved, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const done = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
    expect(done).toMatchObject({type: 'done', outputKey: 'thumbs/ada.png', format: 'png', frame: 45, width: 320, height: 180, functionName: 'engine-render'})
    expect((done.outputUrl as {url: string}).url).toMatch(new RegExp(`^${stack.env.ENGINE_AWS_ENDPOINT}/${stack.env.ENGINE_BUCKET}/thumbs/ada\\.png\\?X-Amz-`))
    // Frame 45: the green band, the magenta box halfway across.
    expect(near(await pixelAt(saved, 0, 160, 70), {r: 0, g: 255, b: 0})).toBe(true)
    expect(near(await pixelAt(saved, 0, 160, 165), {r: 255, g: 0, b: 255})).toBe(true)
    const stored = join(scratch, 'stored.png')
    await stack.bucket.downloadFile('thumbs/ada.png', stored)
    expect(await readFile(stored)).toEqual(await readFile(saved))
    // A still is no render: nothing under renders/ or scratch/.
    expect(await stack.bucket.listKeys('renders/')).toEqual([])
  })

  it('is the same image as a local engine still of the same frame', async () => {
    const local = join(scratch, 'local.png')
    const remote = join(scratch, 'remote.png')
    const [a, b] = await Promise.all([
      runCli(['still', join(PROJECT, 'index.html'), '--frame', '75', '-o', local]),
      lambda(['still', PROJECT, '--frame', '75', '-o', remote]),
    ])
    expect(a.code, a.stderr).toBe(0)
    expect(b.code, b.stderr).toBe(0)
    expect(b.stdout).toMatch(/^stills\/\S+\.png: frame 75 \(2\.500 s\), 320x180 png/m)
    expect(await readFile(remote)).toEqual(await readFile(local))
  })

  it('--format jpeg with --quality and --scale: a JPEG of the scaled size under a default key', async () => {
    const saved = join(scratch, 'scaled.jpg')
    const result = await lambda(['still', PROJECT, '--frame', '10', '--format', 'jpeg', '--quality', '70', '--scale', '0.5', '-o', saved, '--json'])
    expect(result.code, result.stderr).toBe(0)
    const done = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as {outputKey: string}
    expect(done.outputKey).toMatch(/^stills\/[A-Za-z0-9_-]+\.jpg$/)
    const probe = (await ffprobe(saved, ['-show_streams'])) as {streams: {codec_name: string; width: number; height: number}[]}
    expect(probe.streams[0]).toMatchObject({codec_name: 'mjpeg', width: 160, height: 90})
    expect(near(await pixelAt(saved, 0, 80, 35), {r: 255, g: 0, b: 0})).toBe(true)
  })

  it('bad values are refused before anything is uploaded or invoked, naming the flag; a frame past the end fails in the function, naming it', async () => {
    const before = await stack.bucket.listKeys('sites/')
    const cases: [string[], RegExp][] = [
      [['--time', 'soon'], /--time: "soon" is not a time/],
      [['--quality', '140'], /--quality: 140 is invalid/],
      [['--format', 'jpeg', '--output-key', 'thumbs/x.png'], /--output-key: "thumbs\/x\.png" does not end in an extension of jpeg/],
      [['--output-key', 'thumbs/x.gif'], /--output-key: "thumbs\/x\.gif" must end in \.png, \.jpg, \.jpeg or \.webp/],
      [['--output-key', '../escape.png'], /--output-key/],
      [['--scale', '40'], /--scale: 40 is invalid/],
      [['--fps', 'fast'], /--fps: "fast" is not a frame rate/],
    ]
    for (const [flags, message] of cases) {
      const result = await lambda(['still', PROJECT, ...flags])
      expect(result.code, flags.join(' ')).toBe(1)
      expect(result.stderr, flags.join(' ')).toMatch(message)
    }
    expect(await stack.bucket.listKeys('sites/')).toEqual(before)

    const late = await lambda(['still', PROJECT, '--frame', '90', '--output-key', 'thumbs/late.png'])
    expect(late.code).toBe(1)
    expect(late.stderr).toMatch(/error \[INVALID_FLAG\]: still on engine-render: --frame 90 is past the end: the composition has frames 0-89/)
    expect(await stack.bucket.exists('thumbs/late.png')).toBe(false)
  })

  it('the local Invoke API answers as Lambda does: a function error with its type, 404 for another function', async () => {
    const client = new LambdaClient(clientConfig({endpoint: stack.env.ENGINE_AWS_ENDPOINT}))
    const bad = await client.send(new InvokeCommand({FunctionName: 'engine-render', Payload: Buffer.from(JSON.stringify({action: 'still', still: {bucketName: 'x'}}))}))
    expect(bad.FunctionError).toBe('Unhandled')
    const payload = JSON.parse(Buffer.from(bad.Payload!).toString('utf8')) as {errorType: string; errorMessage: string}
    expect(payload.errorType).toBe('Engine.INVALID_REQUEST')
    expect(payload.errorMessage).toMatch(/still\.siteId/)
    await expect(client.send(new InvokeCommand({FunctionName: 'someone-else', Payload: Buffer.from('{}')}))).rejects.toMatchObject({name: 'ResourceNotFoundException'})
    // Over Lambda's 6 MB payload limit: refused with the answer, the connection kept for it.
    await expect(client.send(new InvokeCommand({FunctionName: 'engine-render', Payload: Buffer.alloc(7 * 1024 * 1024, 32)}))).rejects.toMatchObject({name: 'RequestTooLargeException'})
  })
})
