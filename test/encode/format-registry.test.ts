import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import {assertFormatAccepts} from '../../src/lib/encode/format-constraints.js'
import {captureImageFormat, outputExtension, type VideoSegmentFormat} from '../../src/lib/encode/format-plugin.js'
import {getFormat, listFormats, registerFormat} from '../../src/lib/encode/format-registry.js'
import {encodeSegments, ffmpeg, makeFrames, probeVideoStream, useScratchDir, testPlan} from './support/encode-fixtures.js'

describe('format registry', () => {
  const scratch = useScratchDir()

  it('has the five built-in formats with their capture, audio and output kinds', () => {
    const summary = listFormats().map((plugin) => [plugin.name, captureImageFormat(plugin), plugin.audio, outputExtension(plugin) ?? 'directory'])
    expect(summary.slice(0, 5)).toEqual([
      ['mp4', 'jpeg', 'aac', '.mp4'],
      ['mov', 'png', 'aac', '.mov'],
      ['webm', 'png', 'opus', '.webm'],
      ['gif', 'jpeg', 'none', '.gif'],
      ['png-sequence', 'png', 'sidecar', 'directory'],
    ])
  })

  it('an unknown --format names the formats that exist', () => {
    expect(() => getFormat('avi')).toThrow(expect.objectContaining({code: 'INVALID_FLAG', message: expect.stringMatching(/--format: "avi".*mp4, mov, webm, gif, png-sequence/)}))
  })

  it('rejects a malformed third-party plugin and a second plugin with a taken name', () => {
    expect(() => registerFormat({name: 'Bad Name', worker: 'video-segment'} as never)).toThrow(
      expect.objectContaining({code: 'INVALID_CONFIG', message: expect.stringContaining('format plugin "Bad Name" is invalid')}),
    )
    expect(() => registerFormat({...getFormat('mp4')})).toThrow(expect.objectContaining({code: 'INVALID_CONFIG', message: expect.stringContaining('already registered')}))
    expect(() => registerFormat(getFormat('mp4'))).not.toThrow()
  })

  it('renders through a third-party plugin (lossless FFV1 in Matroska) like a built-in', async () => {
    const ffv1: VideoSegmentFormat = {
      name: 'mkv-ffv1',
      description: 'FFV1 in Matroska',
      alpha: false,
      audio: 'none',
      evenDimensions: false,
      rateControl: false,
      gpu: false,
      worker: 'video-segment',
      extension: '.mkv',
      segmentExtension: '.mkv',
      requiredEncoders: () => ['ffv1'],
      segmentArgs: () => ({input: [], output: ['-c:v', 'ffv1', '-f', 'matroska']}),
      assemble: async (context) => context.ffmpeg([...(await context.copySegments()), '-f', 'matroska', context.outputPath]),
    }
    registerFormat(ffv1)
    expect(getFormat('mkv-ffv1')).toBe(ffv1)

    const dir = scratch()
    const info = await ffmpeg()
    const plan = testPlan({format: 'mkv-ffv1', totalFrames: 8})
    const frames = await makeFrames({count: 8, imageFormat: 'jpeg'})
    const segments = await encodeSegments(plan, frames, [3, 5], join(dir, 'work'), info)
    const output = join(dir, 'out.mkv')
    await assembleOutput({plan, segments, outputPath: output, ffmpeg: info})
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'ffv1', nb_read_frames: '8'})
  })
})

describe('format constraints', () => {
  it('mp4 refuses odd sizes with the fix; formats without chroma halving accept them', () => {
    expect(() => assertFormatAccepts(getFormat('mp4'), {width: 1921, height: 1080})).toThrow(
      expect.objectContaining({code: 'COMPOSITION_INVALID', message: expect.stringContaining('such as 1922x1080')}),
    )
    expect(() => assertFormatAccepts(getFormat('mp4'), {width: 1920, height: 1080})).not.toThrow()
    for (const name of ['mov', 'webm', 'gif', 'png-sequence']) expect(() => assertFormatAccepts(getFormat(name), {width: 321, height: 181})).not.toThrow()
  })
})
