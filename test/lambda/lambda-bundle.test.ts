import {existsSync} from 'node:fs'
import {copyFile, mkdir, mkdtemp, readFile, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {GetExecutionHistoryCommand} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createSfnClient} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {buildLambdaBundle, MAX_UNZIPPED_BYTES, type BundleReport} from '../../packages/lambda/src/lib/lambda/bundle/build-lambda-bundle.js'
import {listZip, type ZipListing} from '../../packages/lambda/src/lib/lambda/bundle/read-zip.js'
import type {RenderFailureRecord, RenderResultRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {FUNCTION_CHROMIUM, functionChromiumDir} from '../../src/lib/browser/function-chromium.js'
import {PINNED_FFMPEG} from '../../src/lib/encode/pinned-ffmpeg.js'
import {seedPinnedFfmpeg} from '../support/pinned-ffmpeg.js'
import {hashFile} from '../../packages/lambda/src/lib/lambda/site-files.js'
import {DETERMINISTIC_PROFILE} from '../../src/lib/profile/render-profile.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {decodedFrameHashes, ffprobe, near, pixelAt, probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {LAMBDA_FIXTURES, startStackCli, type RunningStack} from './support.js'

// Packages that belong to the CLI, the local stack or deploy: none may reach the function.
const SYSTEM_FFMPEG = '/usr/bin/ffmpeg'
const SYSTEM_FFPROBE = '/usr/bin/ffprobe'
const NOT_IN_BUNDLE = ['s3rver', 'aws-local-stepfunctions', '@oclif/core', '@oclif/plugin-help', 'listr2', 'cosmiconfig', 'polka', '@aws-sdk/client-iam', '@aws-sdk/client-lambda', '@aws-sdk/client-cloudwatch', 'esbuild', 'yazl', 'vitest']

describe('engine lambda bundle', () => {
  let scratch: string
  let zipPath: string
  let report: BundleReport
  let entries: ZipListing[]
  // The example format plugin, linked in a private data directory: the bundle carries it.
  let pluginEnv: Record<string, string>
  // `engine lambda local --bundle` (started once the zip is written): its function's task root is
  // the zip unpacked, which the tests of what the zip holds read instead of unpacking it again.
  let stack: RunningStack
  let taskRoot: string

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-bundle-test-'))
    zipPath = join(scratch, 'out', 'engine-lambda.zip')
    // A cache of its own holding the pinned ffmpeg (this machine's standing in for it); the
    // function's Chromium stays where the machine's cache has it.
    const cacheDir = join(scratch, 'cache')
    await seedPinnedFfmpeg(cacheDir)
    pluginEnv = {ENGINE_DATA_DIR: join(scratch, 'data'), ENGINE_CONFIG_DIR: join(scratch, 'config'), ENGINE_CACHE_DIR: cacheDir, ENGINE_FUNCTION_CHROMIUM_DIR: functionChromiumDir()}
    const linked = await runCli(['plugins', 'link', join(REPO_ROOT, 'examples', 'format-plugin'), '--no-install'], {env: pluginEnv})
    expect(linked.code, linked.stderr).toBe(0)
    // By default the pinned ffmpeg goes in, the one `render --profile deterministic` encodes with:
    // with the function's Chromium on both sides, `lambda local --bundle` and a local render make the same file.
    const result = await runCli(['lambda', 'bundle', '--output', zipPath, '--json'], {env: pluginEnv, timeoutMs: 240_000})
    expect(result.code, result.stderr).toBe(0)
    report = JSON.parse(result.stdout) as BundleReport
    entries = await listZip(zipPath)
    // Unpacking the zip into the task root takes a while before the stack prints its lines.
    const stackDir = join(scratch, 'stack')
    stack = await startStackCli(['--bundle', zipPath, '--concurrency', '2'], 180_000, stackDir)
    taskRoot = join(`${stackDir}.function`, 'task')
  }, 420_000)
  afterAll(async () => {
    await stack?.stop()
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('stays under the unzipped limit, and the report tells the truth about the zip', () => {
    const unzipped = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0)
    expect(unzipped).toBeLessThanOrEqual(MAX_UNZIPPED_BYTES)
    expect(report.unzippedBytes).toBeGreaterThanOrEqual(unzipped)
    expect(report.unzippedBytes - unzipped).toBeLessThan(16 * 1024)
    expect(report.path).toBe(zipPath)
    expect(report.zipBytes).toBeLessThan(unzipped)
    expect(report.parts[0].part).toBe('@sparticuz/chromium')
    expect(report.parts.map((part) => part.part)).toEqual(expect.arrayContaining(['ffmpeg', 'ffprobe', 'fonts', 'handler']))
  })

  it('holds the one-file handler, the serverless Chromium package, executable ffmpeg/ffprobe, the profile fonts and the page runtime', () => {
    const byName = new Map(entries.map((entry) => [entry.name, entry]))
    for (const name of ['handler.mjs', 'package.json', 'engine-bundle.json', 'dist/runtime/engine-runtime.js', 'node_modules/@sparticuz/chromium/bin/chromium.br', 'node_modules/@sparticuz/chromium/build/index.js', 'node_modules/tar-fs/package.json']) {
      expect(byName.has(name), name).toBe(true)
    }
    expect(byName.get('bin/ffmpeg')?.mode).toBe(0o755)
    expect(byName.get('bin/ffprobe')?.mode).toBe(0o755)
    const fonts = entries.filter((entry) => entry.name.startsWith('fonts/')).map((entry) => entry.name.slice('fonts/'.length))
    expect(fonts.sort()).toEqual(DETERMINISTIC_PROFILE.fonts.files.map((file) => file.path.split('/').pop()).sort())
    // Only the handler is JavaScript of ours: no dist/src tree, no other node_modules than the browser's.
    expect(entries.filter((entry) => entry.name.startsWith('dist/src/'))).toEqual([])
    const modules = new Set(entries.filter((entry) => entry.name.startsWith('node_modules/')).map((entry) => /^node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(entry.name)![1]))
    expect(modules.has('@sparticuz/chromium')).toBe(true)
    expect(modules.size).toBeLessThan(20)
  })

  it("carries the user's plugins: each engine hook compiled into one module, listed for the cold start", () => {
    expect(report.plugins).toEqual([{name: 'engine-plugin-mkv', version: '1.0.0', hooks: [{hook: 'engine:formats', module: 'plugins/0/engine-formats-0.mjs'}]}])
    const names = entries.map((entry) => entry.name)
    expect(names).toEqual(expect.arrayContaining(['plugins/index.json', 'plugins/0/engine-formats-0.mjs']))
  })

  it('leaves out the CLI, the local stack and the deploy-only clients', () => {
    const names = entries.map((entry) => entry.name)
    for (const pkg of NOT_IN_BUNDLE) {
      expect(report.handlerPackages, pkg).not.toContain(pkg)
      expect(names.some((name) => name.includes(`node_modules/${pkg}/`)), pkg).toBe(false)
    }
    expect(report.handlerPackages).toEqual(expect.arrayContaining(['puppeteer-core', '@aws-sdk/client-s3', 'zod']))
  })

  it('records the browser and encoder versions, and the encoders distributed renders need are there', {timeout: 120_000}, async () => {
    const dir = taskRoot
    const manifest = JSON.parse(await readFile(join(dir, 'engine-bundle.json'), 'utf8')) as BundleReport
    expect(manifest.handler).toBe('handler.handler')
    expect(manifest.arch).toBe('x86_64')
    expect(manifest.chromium).toEqual({package: '@sparticuz/chromium', version: FUNCTION_CHROMIUM.version})
    expect(manifest.ffmpeg.encoders).toEqual(expect.arrayContaining(['libx264', 'libvpx-vp9', 'libopus', 'aac', 'prores_ks', 'gif', 'png']))
    // The pinned build is the one carried, byte for byte, and the report says which archive it came from.
    const pinned = {version: '7.0.2', archive: PINNED_FFMPEG.x86_64.archive, archiveSha256: PINNED_FFMPEG.x86_64.sha256, url: PINNED_FFMPEG.x86_64.urls[0]}
    expect(manifest.ffmpeg).toMatchObject({source: 'pinned', pinned, sha256: (await hashFile(SYSTEM_FFMPEG)).sha256, arch: 'x86_64', dynamic: true, version: expect.stringMatching(/\S/)})
    expect(manifest.ffprobe).toMatchObject({source: 'pinned', pinned, sha256: (await hashFile(SYSTEM_FFPROBE)).sha256})
    expect((await hashFile(join(dir, 'bin', 'ffmpeg'))).sha256).toBe(manifest.ffmpeg.sha256)
    // The handler module loads: the banner gives bundled CommonJS code require and __dirname.
    const loaded = (await import(join(dir, 'handler.mjs'))) as {handler?: unknown}
    expect(typeof loaded.handler).toBe('function')
  })

  it('over the limit: fails naming the largest parts, and writes nothing', async () => {
    const output = join(scratch, 'too-big.zip')
    const failure = await buildLambdaBundle({output, maxUnzippedBytes: 100 * 1024 * 1024}).catch((error: Error) => error)
    expect(failure).toMatchObject({code: 'BUNDLE_TOO_LARGE'})
    expect((failure as Error).message).toMatch(/over the 100\.0 MiB limit.*Largest parts: (ffprobe|@sparticuz\/chromium|ffmpeg) \d+\.\d MiB/)
    expect(existsSync(output)).toBe(false)
  }, 120_000)

  describe('engine lambda local --bundle <zip> --concurrency 2: invocations run from the bundle, as on Lambda', () => {
    const lambda = (args: string[]) => runCli(['lambda', ...args], {env: stack.env, timeoutMs: 300_000})

    it('a 3-chunk render: a throttled chunk waits for a slot, the bundle\'s Chromium captures with begin-frame, and the mp4 is the same file as `engine render --profile deterministic`', {timeout: 400_000}, async () => {
      const started = await lambda(['render', join(LAMBDA_FIXTURES, 'project'), '--chunk-size', '30', '--keyframe-interval', '0.5', '--crf', '0', '--output-key', 'out/bundled.mp4', '--wait'])
      expect(started.code, started.stderr).toBe(0)
      expect(started.stdout).toMatch(/SUCCEEDED \(done\)/)
      expect(started.stdout).toMatch(/Chunks: 3\/3 done; frames 90\/90/)
      const renderId = /^Render (\S+): SUCCEEDED/m.exec(started.stdout)![1]

      // Three chunks against a concurrency of 2: the third invocation was refused as Lambda refuses
      // it, and every chunk still ran to success (three chunks show it as well as six did, at half
      // the cold starts and browser launches, and less of the throttled retries' backoff).
      const executionArn = `${stack.env.ENGINE_SFN_ARN.replace(':stateMachine:', ':execution:')}:${renderId}`
      const history = await createSfnClient({endpoint: stack.env.ENGINE_AWS_ENDPOINT}).send(new GetExecutionHistoryCommand({executionArn, maxResults: 1000}))
      const throttled = history.events!.filter((event) => event.type === 'LambdaFunctionStartFailed')
      expect(throttled.length).toBeGreaterThan(0)
      expect(throttled[0].lambdaFunctionStartFailedEventDetails?.error).toBe('Lambda.TooManyRequestsException')
      expect(history.events!.filter((event) => event.type === 'LambdaFunctionSucceeded')).toHaveLength(5)

      const result = (await stack.bucket.getJson<RenderResultRecord>(`renders/${renderId}/result.json`))!
      expect(result.chunks).toHaveLength(3)
      // Each chunk names the browser it captured with: the bundle's build, not the host's.
      const major = report.chromium.version.split('.')[0]
      for (const chunk of result.chunks) expect(chunk.browser).toEqual({version: expect.stringMatching(new RegExp(`^${major}\\.\\d+\\.\\d+\\.\\d+$`)), source: 'sparticuz', capture: 'begin-frame'})
      expect(await stack.bucket.listKeys(`scratch/${renderId}/`)).toEqual([])

      const bundled = join(scratch, 'bundled.mp4')
      await stack.bucket.downloadFile('out/bundled.mp4', bundled)
      const local = join(scratch, 'local.mp4')
      const rendered = await runCli(['render', join(LAMBDA_FIXTURES, 'project', 'index.html'), '--profile', 'deterministic', '--crf', '0', '--keyframe-interval', '0.5', '-o', local], {env: pluginEnv, timeoutMs: 200_000})
      expect(rendered.code, rendered.stderr).toBe(0)
      // No notice: the local render found the function's Chromium and ffmpeg.
      expect(rendered.stderr).not.toMatch(/profile-(browser|ffmpeg)-mismatch|with the serverless function's/)
      expect(await probeVideoStream(bundled)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '90'})
      expect((await hashFile(bundled)).sha256).toBe((await hashFile(local)).sha256)
    })

    it('web fonts: the Google Fonts page (27 faces served) renders with every face, in each of three renders, as locally (faces Chromium fails are made again from their bytes)', {timeout: 300_000}, async () => {
      const site = join(scratch, 'fonts-site')
      await mkdir(site, {recursive: true})
      await copyFile(join(REPO_ROOT, 'test', 'fixtures', 'fonts', 'google.html'), join(site, 'index.html'))
      const renders: string[][] = []
      for (const run of [1, 2, 3]) {
        const started = await lambda(['render', site, '--strict-fonts', '--crf', '0', '--output-key', `out/fonts-${run}.mp4`, '--wait'])
        expect(started.code, started.stderr).toBe(0)
        const output = join(scratch, `fonts-${run}.mp4`)
        await stack.bucket.downloadFile(`out/fonts-${run}.mp4`, output)
        renders.push(await decodedFrameHashes(output))
      }
      const local = await renderComposition({composition: join(site, 'index.html'), options: resolveRenderOptions({crf: 0, workers: 1, strictFonts: true, profile: 'deterministic', output: join(scratch, 'fonts-local.mp4')})})
      const localFrames = await decodedFrameHashes(local.output)
      for (const frames of renders) expect(frames).toEqual(localFrames)
    })

    it('a format from a bundled plugin renders on the function', {timeout: 300_000}, async () => {
      const result = await runCli(['lambda', 'render', join(LAMBDA_FIXTURES, 'project'), '--format', 'mkv', '--output-key', 'out/plugin.mkv', '--wait'], {
        env: {...stack.env, ...pluginEnv},
        timeoutMs: 300_000,
      })
      expect(result.code, result.stderr).toBe(0)
      const output = join(scratch, 'plugin.mkv')
      await stack.bucket.downloadFile('out/plugin.mkv', output)
      expect((await ffprobe(output, ['-show_format'])).format).toMatchObject({format_name: 'matroska,webm'})
      expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', nb_read_frames: '90'})
    })

    it('lambda still runs from the bundle: its Chromium draws the frame a local render shows', {timeout: 200_000}, async () => {
      const image = join(scratch, 'bundled-still.png')
      const result = await lambda(['still', join(LAMBDA_FIXTURES, 'project'), '--frame', '75', '--variables', '{"accent":"#ff00ff"}', '-o', image])
      expect(result.code, result.stderr).toBe(0)
      expect(result.stdout).toMatch(/: frame 75 \(2\.500 s\), 320x180 png/)
      // Blue band; the magenta box five sixths of the way across (x = 242-271).
      expect(near(await pixelAt(image, 0, 160, 70), {r: 0, g: 0, b: 255})).toBe(true)
      expect(near(await pixelAt(image, 0, 256, 165), {r: 255, g: 0, b: 255})).toBe(true)
      // PNG keeps the page's transparency where nothing is drawn.
      expect(near(await pixelAt(image, 0, 100, 165), {a: 0})).toBe(true)
    })

    it('a failing render leaves its failure record and no scratch', {timeout: 200_000}, async () => {
      const result = await lambda(['render', join(LAMBDA_FIXTURES, 'broken'), '--wait'])
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/error \[COMPOSITION_INVALID\]/)
      const renderId = /^renderId: (\S+)$/m.exec(result.stderr + result.stdout)![1]
      const failure = (await stack.bucket.getJson<RenderFailureRecord>(`renders/${renderId}/failure.json`))!
      expect(failure).toMatchObject({renderId, error: 'Engine.COMPOSITION_INVALID', code: 'COMPOSITION_INVALID', message: expect.stringMatching(/data-duration/)})
      expect(failure.logStream).toMatch(/^\d{4}\/\d{2}\/\d{2}\/\[\$LATEST\][0-9a-f]{32}$/)
      expect(await stack.bucket.listKeys(`scratch/${renderId}/`)).toEqual([])
    })
  })
})
