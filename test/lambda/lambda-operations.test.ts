import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'
import {GetObjectCommand} from '@aws-sdk/client-s3'
import {beforeEach, describe, expect, it} from 'vitest'
import {deploySite, getRenderProgress, renderToLambda, waitForRender, type DeployedSite} from '../../packages/lambda/src/lib/lambda/index.js'
import {smokeTest} from '../../packages/lambda/src/lib/lambda/smoke-test.js'
import {probeVideoStream} from '../support/media.js'
import {runCli, type CliResult} from '../support/run-cli.js'
import {until} from '../support/until.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {sharedStack} from '../support/shared-stack.js'

const PROJECT = join(LAMBDA_FIXTURES, 'project')
const TINY = join(LAMBDA_FIXTURES, 'tiny')
// Every frame costs CPU work (about 0.1-0.3 s at this count): a render of it is still running long
// after it started, on a quiet machine too (at the fixture's default it ended before the cancel).
// One chunk with one capture worker: its 240 frames in a row outlast four chunks of two workers,
// while it keeps one browser busy until the cancel instead of eight.
const SLOW = join(LAMBDA_FIXTURES, 'slow')
const SLOW_RENDER = ['render', SLOW, '--chunk-size', '240', '--concurrency-per-chunk', '1', '--keyframe-interval', '0.5', '--variables', '{"work": 100000000}', '--json']

/** The operations around renders: sites ls/rm, renders ls, cancel, output URLs. */
describe('`engine lambda` operations on the local stack', {timeout: 120_000}, () => {
  let stack: RunningStack
  const lambda = (args: string[]): Promise<CliResult> => runCli(['lambda', ...args], {env: stack.env})
  const json = async (args: string[]) => {
    const result = await lambda([...args, '--json'])
    expect(result.code, result.stderr + result.stdout).toBe(0)
    return JSON.parse(result.stdout)
  }
  /** When a presigned URL was signed: its X-Amz-Date (20250102T030405Z), in ms. */
  const signedAt = (url: string) => Date.parse(new URL(url).searchParams.get('X-Amz-Date')!.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z'))
  const siteIdOf = (result: CliResult) => /^Site ID: ([0-9a-f]{24})$/m.exec(result.stdout)![1]
  /**
   * A finished render of the tiny fixture for a test whose command is another one (cancel, renders
   * rm): started and waited for in-process, as `lambda render --wait` does, without a CLI start.
   */
  let tinySite: Promise<DeployedSite> | undefined
  const renderTiny = async (outputKey: string): Promise<string> => {
    const aws = {endpoint: stack.env.ENGINE_AWS_ENDPOINT}
    // Uploaded once per test (its bucket): two renders at once do not upload the same files twice.
    tinySite ??= deploySite({projectDir: TINY, bucketName: stack.env.ENGINE_BUCKET, ...aws})
    const siteHandle = await tinySite
    const handle = await renderToLambda({siteHandle, bucketName: stack.env.ENGINE_BUCKET, stateMachineArn: stack.env.ENGINE_SFN_ARN, config: {}, outputKey, ...aws})
    const done = await waitForRender({render: handle.executionArn, ...aws, pollMs: 250, signal: AbortSignal.timeout(100_000)})
    expect(done.status, JSON.stringify(done.error)).toBe('SUCCEEDED')
    return handle.renderId
  }

  // A bucket of its own for every test: none depends on what another left, or on running first.
  beforeEach(async () => {
    stack = await sharedStack()
    tinySite = undefined
  })

  it('sites ls lists each upload with its files and size, marks a cut-short upload incomplete; sites rm deletes one site and only it', async () => {
    expect((await lambda(['sites', 'ls'])).stdout).toMatch(/^No sites: `engine lambda sites create <projectDir>` uploads one$/m)
    const project = siteIdOf(await lambda(['sites', 'create', PROJECT]))
    const tiny = siteIdOf(await lambda(['sites', 'create', TINY]))
    // What an upload interrupted before its manifest leaves behind.
    const cutShort = 'ab'.repeat(12)
    await stack.bucket.putJson(`sites/${cutShort}/index.html`, {})

    // Each site also carries the font packages its composition uses (see site-fonts.ts).
    const fontsOf = async (siteId: string) => (await stack.bucket.listKeys(`sites/${siteId}/.engine/fonts/`)).length
    const [projectFonts, tinyFonts] = [await fontsOf(project), await fontsOf(tiny)]
    expect(projectFonts).toBeGreaterThan(0)
    const sites = await json(['sites', 'ls'])
    expect(sites).toHaveLength(3)
    expect(sites).toContainEqual(expect.objectContaining({siteId: project, complete: true, entry: 'index.html', files: 2 + projectFonts}))
    expect(sites).toContainEqual(expect.objectContaining({siteId: tiny, complete: true, files: 1 + tinyFonts}))
    expect(sites.at(-1)).toEqual({siteId: cutShort, complete: false})
    const text = (await lambda(['sites', 'ls'])).stdout
    expect(text).toMatch(/^SITE ID +FILES +SIZE +UPLOADED +ENTRY$/m)
    expect(text).toMatch(new RegExp(`^${project} +${2 + projectFonts} +\\d+\\.\\d\\d MB +\\d{4}-\\d\\d-\\d\\dT.* index\\.html$`, 'm'))
    expect(text).toMatch(new RegExp(`^${cutShort} +- +- +incomplete upload +-$`, 'm'))

    const removed = await lambda(['sites', 'rm', project])
    expect(removed).toMatchObject({code: 0, stdout: `Removed site ${project} (${3 + projectFonts} objects) from s3://${stack.env.ENGINE_BUCKET}/\n`})
    expect(await stack.bucket.listKeys(`sites/${project}/`)).toEqual([])
    expect((await json(['sites', 'ls'])).map((site: {siteId: string}) => site.siteId).sort()).toEqual([cutShort, tiny].sort())
  })

  it('sites rm refuses a malformed Site ID and names a missing one, each with the fix', async () => {
    const malformed = await lambda(['sites', 'rm', '../renders'])
    expect(malformed).toMatchObject({code: 1, stdout: ''})
    expect(malformed.stderr).toBe(
      'error [INVALID_FLAG]: siteId: "../renders" is not a Site ID (24 hex characters, as printed by `engine lambda sites create` and listed by `engine lambda sites ls`)\n',
    )
    const missing = await lambda(['sites', 'rm', 'cd'.repeat(12), '--json'])
    expect(missing.code).toBe(1)
    expect(JSON.parse(missing.stdout).error).toEqual({
      code: 'NOT_FOUND',
      message: `siteId: no site "${'cd'.repeat(12)}" in bucket "${stack.env.ENGINE_BUCKET}"; \`engine lambda sites ls\` lists the sites there`,
      details: {field: 'siteId', value: 'cd'.repeat(12), bucketName: stack.env.ENGINE_BUCKET},
    })
  })

  it('render --wait gives a presigned HTTPS URL that serves the output until it expires; --privacy private gives none; renders ls shows the render succeeded', async () => {
    // Long enough to fetch the output once on a loaded machine (6 s was not, at load 35).
    const rendered = await lambda(['render', TINY, '--wait', '--output-key', 'out/tiny.mp4', '--url-expires', '20'])
    expect(rendered.code, rendered.stderr).toBe(0)
    const url = /^URL: (\S+)$/m.exec(rendered.stdout)![1]
    const signed = new URL(url)
    expect(`${signed.origin}${signed.pathname}`).toBe(`${stack.env.ENGINE_AWS_ENDPOINT}/${stack.env.ENGINE_BUCKET}/out/tiny.mp4`)
    expect(signed.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256')
    expect(signed.searchParams.get('X-Amz-Expires')).toBe('20')
    expect(signed.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/)
    const expires = Date.parse(/^URL expires: (\d{4}-\d\d-\d\dT[\d:.]+Z)$/m.exec(rendered.stdout)![1])
    const stored = await stack.bucket.s3.send(new GetObjectCommand({Bucket: stack.env.ENGINE_BUCKET, Key: 'out/tiny.mp4'}))
    const response = await fetch(url)
    expect(response.status).toBe(200)
    expect(Buffer.from(await response.arrayBuffer())).toEqual(Buffer.from(await stored.Body!.transformToByteArray()))
    // The printed expiry is the signed one: X-Amz-Date (whole seconds) plus the 20 s.
    expect(expires - signedAt(url)).toBeGreaterThanOrEqual(20_000)
    expect(expires - signedAt(url)).toBeLessThan(21_000)

    // Refused once it expires, and not before: a URL of the same output that lives 5 s (the first
    // one's 20 s would be waited out), polled (bounded) instead of guessing how long to sleep.
    const renderId = /^renderId: (\S+)$/m.exec(rendered.stderr)![1]
    const short = (await json(['progress', renderId, '--url-expires', '5'])).output.https as {url: string; privacy: string; expiresAt: string}
    expect(short.privacy).toBe('presigned')
    expect(new URL(short.url).searchParams.get('X-Amz-Expires')).toBe('5')
    expect(await until(async () => (await fetch(short.url)).status === 403, 60_000, 250)).toBe(true)
    // X-Amz-Date counts whole seconds: the signature may lapse up to a second before the printed time.
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(short.expiresAt) - 1000)

    const progress = await json(['progress', renderId, '--privacy', 'private'])
    expect(progress.output).toEqual({bucketName: stack.env.ENGINE_BUCKET, outputKey: 'out/tiny.mp4', url: `s3://${stack.env.ENGINE_BUCKET}/out/tiny.mp4`, bytes: expect.any(Number)})
    const publicUrl = (await json(['progress', renderId, '--privacy', 'public'])).output.https
    expect(publicUrl).toEqual({url: `${stack.env.ENGINE_AWS_ENDPOINT}/${stack.env.ENGINE_BUCKET}/out/tiny.mp4`, privacy: 'public'})

    const [listed] = await json(['renders', 'ls', '--limit', '1'])
    expect(listed).toMatchObject({renderId, status: 'succeeded', outputKey: 'out/tiny.mp4', format: 'mp4', width: 320, height: 180, totalFrames: 6, chunks: 1, bytes: progress.output.bytes})
    expect(Date.parse(listed.endedAt)).toBeGreaterThan(Date.parse(listed.startedAt))
  })

  it('an out-of-range --url-expires or --limit is refused before anything starts, naming the range', async () => {
    const expires = await lambda(['render', TINY, '--wait', '--url-expires', '604801'])
    expect(expires).toMatchObject({
      code: 1,
      stderr: 'error [INVALID_FLAG]: --url-expires: 604801 is not a URL lifetime; pass whole seconds from 1 to 604800 (7 days, the most S3 signs for)\n',
    })
    const limit = await lambda(['renders', 'ls', '--limit', '0'])
    expect(limit).toMatchObject({code: 1, stderr: 'error [INVALID_FLAG]: --limit: 0 is not a count of renders to list; pass a whole number from 1 to 1000\n'})
  })

  it('cancel stops a rendering execution, records it, deletes its scratch; renders ls and progress show it cancelled; a finished render cannot be cancelled', async () => {
    // The slow fixture, 0.5 s segments: a chunk of 240 costly frames, still at work when the
    // cancel comes (a small render ended first at load 20: nothing to cancel).
    const started = await lambda(SLOW_RENDER)
    expect(started.code, started.stderr).toBe(0)
    const {renderId} = JSON.parse(started.stdout) as {renderId: string}
    const options = {render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN}
    // Cancel while chunks are at work, so that there is scratch to delete.
    for (let progress = await getRenderProgress(options); progress.stage !== 'rendering'; progress = await getRenderProgress(options)) {
      expect(progress.status).toBe('RUNNING')
      await sleep(200)
    }
    expect((await stack.bucket.listKeys(`scratch/${renderId}/`)).length).toBeGreaterThan(0)

    const cancelled = await lambda(['cancel', renderId])
    expect(cancelled.code, cancelled.stderr).toBe(0)
    expect(cancelled.stdout).toMatch(new RegExp(`^Cancelled render ${renderId}: execution stopped after \\d+ ms, \\d+ scratch objects deleted \\(\\d+ ms in all\\)\\n$`))
    // A chunk still at work when the execution stopped may write once more before it sees the
    // stop marker; it then removes what it wrote (on AWS too, an invocation outlives its execution).
    expect(await until(async () => (await stack.bucket.listKeys(`scratch/${renderId}/`)).length === 0, 60_000, 250)).toBe(true)
    expect(await stack.bucket.getJson(`renders/${renderId}/cancelled.json`)).toMatchObject({renderId, cancelledAt: expect.any(String)})

    const progress = await getRenderProgress(options)
    expect(progress).toMatchObject({status: 'ABORTED', stage: 'failed', error: {code: 'CANCELLED', message: `render ${renderId} was cancelled (\`engine lambda cancel\`)`}})
    const listed = (await json(['renders', 'ls'])).find((render: {renderId: string}) => render.renderId === renderId)
    expect(listed).toMatchObject({status: 'cancelled', totalFrames: 240, chunks: 1})
    expect((await lambda(['renders', 'ls'])).stdout).toMatch(new RegExp(`^${renderId} +cancelled +`, 'm'))

    const again = await lambda(['cancel', renderId])
    expect(again).toMatchObject({code: 0, stdout: `Render ${renderId} was already stopped; its scratch is cleaned up (0 objects deleted)\n`})

    // A render of this test's own that finished (no test relies on another having run first).
    const done = await renderTiny('out/done.mp4')
    const finished = await lambda(['cancel', done])
    expect(finished).toMatchObject({
      code: 1,
      stderr: `error [INVALID_REQUEST]: render: ${done} already ended SUCCEEDED, so there is nothing to cancel; \`engine lambda renders ls\` lists the renders still running\n`,
    })
  })

  it('renders rm deletes an ended render (output, scratch, records) and only it; a running one is refused; a bad or unknown id is named', async () => {
    const started = await lambda(SLOW_RENDER)
    expect(started.code, started.stderr).toBe(0)
    const {renderId: running} = JSON.parse(started.stdout) as {renderId: string}
    const refused = await lambda(['renders', 'rm', running])
    expect(refused).toMatchObject({code: 1, stderr: `error [INVALID_REQUEST]: render ${running} is still running; \`engine lambda cancel ${running}\` stops it, then remove it\n`})
    const cancelled = await lambda(['cancel', running])
    expect(cancelled.code, cancelled.stderr).toBe(0)

    const [kept, gone] = await Promise.all([renderTiny('out/kept.mp4'), renderTiny('out/gone.mp4')])
    const removed = await lambda(['renders', 'rm', gone])
    expect(removed.code, removed.stderr).toBe(0)
    expect(removed.stdout).toMatch(new RegExp(`^Removed render ${gone} with its output out/gone\\.mp4 \\(\\d+ objects\\) from s3://${stack.env.ENGINE_BUCKET}/\n$`))
    expect(await stack.bucket.exists('out/gone.mp4')).toBe(false)
    expect(await stack.bucket.listKeys(`renders/${gone}/`)).toEqual([])
    expect(await stack.bucket.exists('out/kept.mp4')).toBe(true)
    expect(await stack.bucket.listKeys(`renders/${kept}/`)).not.toEqual([])
    const listed = (await json(['renders', 'ls'])).map((render: {renderId: string}) => render.renderId)
    expect(listed).not.toContain(gone)
    expect(listed).toContain(kept)

    // --keep-output: the records and scratch go, the file stays. A cancelled render has no output to remove.
    expect(await json(['renders', 'rm', kept, '--keep-output'])).toEqual({renderId: kept, bucketName: stack.env.ENGINE_BUCKET, objectsDeleted: expect.any(Number)})
    expect(await stack.bucket.exists('out/kept.mp4')).toBe(true)
    expect((await json(['renders', 'rm', running])).outputKey).toBeUndefined()

    const again = await lambda(['renders', 'rm', gone])
    expect(again).toMatchObject({code: 1, stderr: expect.stringMatching(new RegExp(`^error \\[NOT_FOUND\\]: render ${gone} has no records in bucket`))})
    for (const hostile of ['../sites', 'abc', `${gone}/x`]) {
      const bad = await lambda(['renders', 'rm', hostile])
      expect(bad.code, hostile).toBe(1)
      expect(bad.stderr).toMatch(/error \[INVALID_FLAG\]: .*renderId: ".*" is not a render id/)
    }
    expect((await json(['sites', 'ls'])).length).toBeGreaterThan(0)
  })

  it('the deploy smoke test renders 1 s at 320x180 through the stack and reports it', async () => {
    const smoke = await smokeTest({bucketName: stack.env.ENGINE_BUCKET, stateMachineArn: stack.env.ENGINE_SFN_ARN, endpoint: stack.env.ENGINE_AWS_ENDPOINT, pollMs: 300})
    expect(smoke.progress).toMatchObject({status: 'SUCCEEDED', frames: {done: 30, total: 30}, output: {https: {privacy: 'presigned'}}})
    const dir = await mkdtemp(join(tmpdir(), 'engine-smoke-'))
    try {
      const file = join(dir, 'smoke.mp4')
      await stack.bucket.downloadFile(smoke.progress.output.outputKey, file)
      expect(await probeVideoStream(file)).toMatchObject({width: 320, height: 180, nb_read_frames: '30'})
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
