import {copyFile, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {waitForRender} from '../../packages/lambda/src/lib/lambda/index.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {decodedFrameHashes} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {type RunningStack} from '../lambda/support.js'
import {sharedStack} from '../support/shared-stack.js'
import {startGoogleFontsApi, STAND_IN_FAMILY, type GoogleFontsApi} from './support/google-fonts-api.js'

describe('fonts through the serverless stack', {timeout: 300_000}, () => {
  let stack: RunningStack
  let project: string
  let restoreEnv: (() => void) | undefined
  let api: GoogleFontsApi

  beforeAll(async () => {
    api = await startGoogleFontsApi('http://127.0.0.2:9')
    project = await mkdtemp(join(tmpdir(), 'engine-lambda-fonts-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(project, '.cache')})
    await mkdir(join(project, 'site'), {recursive: true})
    await copyFile(join(REPO_ROOT, 'test', 'fixtures', 'fonts', 'google.html'), join(project, 'site', 'index.html'))
    stack = await sharedStack()
  }, 120_000)
  afterAll(async () => {
    await stack?.stop()
    await api?.close()
    restoreEnv?.()
    await rm(project, {recursive: true, force: true})
  })

  it('renders a Google Fonts composition in chunks with the same frames as a local render', async () => {
    // 6 frames at 30 fps: 0.1 s segments of 3 frames make two chunks of one segment each.
    const started = await runCli(['lambda', 'render', join(project, 'site'), '--chunk-size', '3', '--keyframe-interval', '0.1', '--crf', '0', '--output-key', 'out/fonts.mp4'], {env: stack.env})
    expect(started.code, started.stderr).toBe(0)
    const renderId = /^renderId: (\S+)$/m.exec(started.stdout)![1]
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(180_000)})
    expect(done.error).toBeUndefined()
    expect(done).toMatchObject({status: 'SUCCEEDED', chunks: {done: 2, total: 2}})

    const chunked = join(project, 'chunked.mp4')
    await stack.bucket.downloadFile('out/fonts.mp4', chunked)
    const local = await renderComposition({
      composition: join(project, 'site', 'index.html'),
      options: resolveRenderOptions({crf: 0, workers: 1, keyframeInterval: 0.1, profile: 'deterministic', output: join(project, 'local.mp4')}),
    })
    const [chunkedFrames, localFrames] = await Promise.all([decodedFrameHashes(chunked), decodedFrameHashes(local.output)])
    expect(chunkedFrames).toHaveLength(6)
    expect(chunkedFrames).toEqual(localFrames)
  })

  it('a family downloaded for a Google Fonts link travels with the site; the function never fetches it', async () => {
    const site = join(project, 'google-site')
    await mkdir(site, {recursive: true})
    await writeFile(
      join(site, 'index.html'),
      `<!doctype html><html><head><link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=${STAND_IN_FAMILY.replaceAll(' ', '+')}:wght@700"><style>html, body { margin: 0; background: #fff; } h1 { margin: 0; font: 700 40px '${STAND_IN_FAMILY}'; }</style></head>` +
        '<body><div id="r" data-composition-id="g" data-width="320" data-height="180" data-duration="0.1"><h1>Hamburgefonstiv</h1></div></body></html>',
    )
    const started = await runCli(['lambda', 'render', site, '--crf', '0', '--strict-fonts', '--output-key', 'out/google.mp4'], {env: {...stack.env, ENGINE_GOOGLE_FONTS_API: api.url}})
    expect(started.code, started.stderr).toBe(0)
    const fetched = api.requests.length
    expect(fetched).toBeGreaterThan(0)
    const renderId = /^renderId: (\S+)$/m.exec(started.stdout)![1]
    const done = await waitForRender({render: renderId, endpoint: stack.env.ENGINE_AWS_ENDPOINT, stateMachineArn: stack.env.ENGINE_SFN_ARN, pollMs: 300, signal: AbortSignal.timeout(120_000)})
    expect(done.error).toBeUndefined()
    expect(done.status).toBe('SUCCEEDED')
    expect(api.requests.length).toBe(fetched)
    const carried = (await stack.bucket.listKeys('sites/')).filter((key) => key.includes('/.engine/fonts/engine-test-display/files/'))
    expect(carried.map((key) => key.slice(key.lastIndexOf('/') + 1)).sort()).toEqual([
      'engine-test-display-latin-700-normal.woff2',
      'engine-test-display-latin-ext-700-normal.woff2',
      'engine-test-display-vietnamese-700-normal.woff2',
    ])

    const chunked = join(project, 'google-chunked.mp4')
    await stack.bucket.downloadFile('out/google.mp4', chunked)
    const local = await renderComposition({composition: join(site, 'index.html'), options: resolveRenderOptions({crf: 0, workers: 1, profile: 'deterministic', output: join(project, 'google-local.mp4')})})
    expect(await decodedFrameHashes(chunked)).toEqual(await decodedFrameHashes(local.output))
  })
})
