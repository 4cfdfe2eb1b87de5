import {cp, mkdir, mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveBrowser} from '../../src/lib/browser/resolve-browser.js'
import {planPageRequests} from '../../src/lib/capture/plan-page-requests.js'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import type {SegmentRef, VideoSegmentFormat} from '../../src/lib/encode/format-plugin.js'
import {getFormat, registerFormat} from '../../src/lib/encode/format-registry.js'
import {resolveFfmpeg} from '../../src/lib/encode/resolve-ffmpeg.js'
import {planRender} from '../../src/lib/plan/plan-render.js'
import type {RenderPlan} from '../../src/lib/plan/render-plan.js'
import {assembleRender, mixRenderAudio} from '../../src/lib/render/assemble-render.js'
import {finalizePlan, planHash, type FinishedPlan} from '../../src/lib/render/finalize-plan.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {renderRange} from '../../src/lib/render/render-range.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {audioSamples, ffmpeg as runFfmpeg, onsetSeconds} from '../media/media-support.js'
import {decodedFrameHashes, ffprobe} from '../support/media.js'
import {overrideEnv} from '../support/override-env.js'
import {PROCESSES} from '../support/timeouts.js'

// A 1 s clip (two colours) shown for the whole composition, and a beep at 0.5 s.
const COMPOSITION = `<!doctype html>
<html>
<head><style>html, body { margin: 0; background: #000; } video { position: absolute; left: 0; top: 0; width: 320px; height: 180px; }</style></head>
<body>
  <div id="root" data-composition-id="pipeline" data-width="320" data-height="180" data-duration="1">
    <video src="media/clip.mp4" data-start="0" data-duration="1"></video>
    <audio src="media/beep.wav" data-start="0.5"></audio>
  </div>
</body>
</html>`

async function makeClip(path: string, colours: [string, string]): Promise<void> {
  const [first, second] = colours
  await runFfmpeg([
    '-f', 'lavfi', '-i', `color=c=${first}:size=320x180:rate=30:duration=0.5`,
    '-f', 'lavfi', '-i', `color=c=${second}:size=320x180:rate=30:duration=0.5`,
    '-filter_complex', '[0:v][1:v]concat=n=2:v=1', '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-crf', '12', path,
  ])
}

describe('one pipeline: planRender, finalizePlan, renderRange, assembleRender', PROCESSES, () => {
  let dir: string
  let project: string
  let ffmpeg: Awaited<ReturnType<typeof resolveFfmpeg>>
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-pipeline-'))
    project = join(dir, 'project')
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache-a')})
    await mkdir(join(project, 'media'), {recursive: true})
    await writeFile(join(project, 'index.html'), COMPOSITION)
    await Promise.all([
      makeClip(join(project, 'media', 'clip.mp4'), ['red', 'blue']),
      runFfmpeg(['-f', 'lavfi', '-i', 'sine=frequency=1000:sample_rate=48000:duration=0.2', '-af', 'volume=0.5', join(project, 'media', 'beep.wav')]),
    ])
    ffmpeg = await resolveFfmpeg()
  })
  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  async function finish(projectDir: string): Promise<{finished: FinishedPlan; workDir: string}> {
    const compiled = await compileComposition(join(projectDir, 'index.html'))
    const {plan} = planRender(compiled, resolveRenderOptions({quality: 'draft', crf: 0}), getFormat('mp4'))
    const workDir = await mkdtemp(join(dir, 'work-'))
    const finished = await finalizePlan(plan, {browser: await resolveBrowser(), ffmpeg, requests: planPageRequests(plan), workDir, dynamicRange: {hdr: false, sdr: false}})
    return {finished, workDir}
  }

  async function renderAll(plan: Readonly<RenderPlan>, workDir: string): Promise<SegmentRef[]> {
    const range = {start: 0, end: plan.totalFrames}
    return renderRange(plan, range, {browser: await resolveBrowser(), requests: planPageRequests(plan), ffmpeg, workDir, workers: 2, onFrame: () => {}})
  }

  it('finishes a plan once: frozen, carrying its media, hashed without the machine-local project directory', async () => {
    const {finished} = await finish(project)
    const {plan} = finished
    expect(plan.runtime.media).toHaveLength(2)
    expect(plan.runtime.media?.[0].frames).toMatchObject({count: 30, extension: 'jpg'})
    expect(finished.clips.map((clip) => [clip.tag, clip.start, clip.audible])).toEqual([
      ['video', 0, false],
      ['audio', 0.5, true],
    ])
    // A stage that tried to complete the plan later would fail here instead of rendering differently.
    expect(Object.isFrozen(plan.encode) && Object.isFrozen(plan.runtime.media?.[0])).toBe(true)
    expect(() => {
      ;(plan.encode as {hdr?: string}).hdr = 'pq'
    }).toThrow(TypeError)

    const travelled = JSON.parse(JSON.stringify(plan)) as RenderPlan
    expect(planHash({...travelled, projectDir: '/var/task/site'})).toBe(finished.hash)
    expect(planHash({...travelled, segmentFrames: travelled.segmentFrames + 1})).not.toBe(finished.hash)
  })

  it('a plan finished elsewhere renders here with an empty frame cache, to the same frames', async () => {
    const {finished, workDir} = await finish(project)
    const warm = await renderAll(finished.plan, workDir)
    const restore = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache-b')})
    try {
      const coldWork = await mkdtemp(join(dir, 'work-'))
      const cold = await renderAll(finished.plan, coldWork)
      const warmOut = join(dir, 'warm.mp4')
      const coldOut = join(dir, 'cold.mp4')
      await assembleRender(finished.plan, warm, {outputPath: warmOut, ffmpeg})
      await assembleRender(finished.plan, cold, {outputPath: coldOut, ffmpeg})
      const [warmFrames, coldFrames] = await Promise.all([decodedFrameHashes(warmOut), decodedFrameHashes(coldOut)])
      expect(coldFrames).toHaveLength(30)
      expect(coldFrames).toEqual(warmFrames)
      // Red frames then blue ones: the page showed the extracted clip, not an empty video.
      expect(new Set(coldFrames).size).toBe(2)
    } finally {
      restore()
    }
  })

  it('renders a plan from another copy of the project, and refuses one whose media differ from those it was finished with', async () => {
    const {finished} = await finish(project)
    const elsewhere = join(dir, 'elsewhere')
    await cp(project, elsewhere, {recursive: true})
    const inCache = async (cache: string, plan: Readonly<RenderPlan>) => {
      const restore = overrideEnv({ENGINE_CACHE_DIR: join(dir, cache)})
      try {
        return await renderAll(plan, await mkdtemp(join(dir, 'work-')))
      } finally {
        restore()
      }
    }
    expect(await inCache('cache-c', {...finished.plan, projectDir: elsewhere})).toHaveLength(2)
    await makeClip(join(elsewhere, 'media', 'clip.mp4'), ['green', 'yellow'])
    await expect(inCache('cache-d', {...finished.plan, projectDir: elsewhere})).rejects.toMatchObject({
      code: 'MEDIA_FAILED',
      message: expect.stringContaining('differ from those the render was planned with'),
    })
  })

  it('assembles with the audio in the same pass, and a format that builds its own input gets it in a second one', async () => {
    const ownInput: VideoSegmentFormat = {
      name: 'mkv-own-input',
      description: 'FFV1 and Opus in Matroska, joined by its own concat list',
      alpha: false,
      audio: 'opus',
      evenDimensions: false,
      rateControl: false,
      gpu: false,
      worker: 'video-segment',
      extension: '.mkv',
      segmentExtension: '.mkv',
      requiredEncoders: () => ['ffv1', 'libopus'],
      segmentArgs: () => ({input: [], output: ['-c:v', 'ffv1', '-f', 'matroska']}),
      assemble: async (context) => {
        const list = join(context.scratchDir, 'own.txt')
        await writeFile(list, context.segments.map((segment) => `file '${segment.path}'\n`).join(''))
        await context.ffmpeg(['-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', '-f', 'matroska', context.outputPath])
      },
    }
    registerFormat(ownInput)
    for (const format of ['mp4', 'mkv-own-input']) {
      const output = join(dir, `with-audio-${format}.${format === 'mp4' ? 'mp4' : 'mkv'}`)
      const result = await renderComposition({composition: join(project, 'index.html'), options: resolveRenderOptions({quality: 'draft', format, output})})
      const streams = (await ffprobe(result.output, ['-show_streams'])).streams as {codec_type: string; codec_name: string}[]
      expect(streams.map((stream) => `${stream.codec_type}:${stream.codec_name}`).sort()).toEqual(['audio:' + (format === 'mp4' ? 'aac' : 'opus'), 'video:' + (format === 'mp4' ? 'h264' : 'ffv1')])
      expect(Math.abs(onsetSeconds(await audioSamples(result.output)) - 0.5), format).toBeLessThan(0.021)
    }
  })

  it('mixes only the sound of a --frames range, from its first frame on', async () => {
    const compiled = await compileComposition(join(project, 'index.html'))
    const {plan} = planRender(compiled, resolveRenderOptions({quality: 'draft', frames: '9-29'}), getFormat('mp4'))
    const workDir = await mkdtemp(join(dir, 'work-'))
    const finished = await finalizePlan(plan, {browser: await resolveBrowser(), ffmpeg, requests: planPageRequests(plan), workDir, dynamicRange: {hdr: false, sdr: false}})
    const track = join(workDir, 'range.wav')
    expect(await mixRenderAudio(finished, track, ffmpeg.ffmpegPath)).toBe(true)
    // The beep at 0.5 s plays 0.2 s into a range that starts at frame 9 (0.3 s).
    expect(Math.abs(onsetSeconds(await audioSamples(track)) - 0.2)).toBeLessThan(0.005)
  })
})
