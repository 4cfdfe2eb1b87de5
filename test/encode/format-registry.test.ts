import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {assembleOutput} from '../../src/lib/encode/assemble-output.js'
import {assertFormatAccepts, captureImageFormat} from '../../src/lib/plan/format-capabilities.js'
import {outputExtension, type VideoSegmentFormat} from '../../src/lib/encode/format-plugin.js'
import {PLUGIN_API_VERSION, formatSource, getFormat, listFormats, registerFormat} from '../../src/lib/encode/format-registry.js'
import {registerHookOutcome} from '../../src/lib/encode/register-plugin-hooks.js'
import {assertFormatSupports} from '../../src/lib/plan/format-capabilities.js'
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
      expect.objectContaining({code: 'INVALID_CONFIG', message: expect.stringContaining('format plugin "Bad Name" from the caller is invalid')}),
    )
    expect(() => registerFormat({...getFormat('mp4')}, 'plugin engine-mp4-copy')).toThrow(
      expect.objectContaining({
        code: 'INVALID_CONFIG',
        message: 'format "mp4" from plugin engine-mp4-copy is refused: engine (built-in) already registers a format with that name; one of them must be renamed or uninstalled',
      }),
    )
    expect(() => registerFormat(getFormat('mp4'))).not.toThrow()
  })

  it('refuses a plugin written for a newer plugin API, naming both versions', () => {
    expect(() => registerFormat({...getFormat('gif'), name: 'gif-next', apiVersion: PLUGIN_API_VERSION + 1}, 'plugin engine-gif-next')).toThrow(
      expect.objectContaining({message: expect.stringMatching(/"gif-next" from plugin engine-gif-next needs plugin API 2, but this engine provides 1/)}),
    )
    expect(() => getFormat('gif-next')).toThrow(/not a known format/)
  })

  it('a failing plugin hook is a warning naming the plugin and its error; the other plugins still register', () => {
    const warnings: string[] = []
    const good = {...getFormat('gif'), name: 'gif-from-good'}
    registerHookOutcome(
      'engine:formats',
      {
        failures: [{plugin: {name: 'engine-broken'}, error: new Error('Cannot find module ./missing.js')}],
        successes: [
          {plugin: {name: 'engine-dup'}, result: [{...getFormat('mp4')}, {name: 'Bad'}]},
          {plugin: {name: 'engine-odd'}, result: 'mp4'},
          {plugin: {name: 'engine-good'}, result: [good]},
        ],
      },
      ({message}) => warnings.push(message),
    )
    expect(warnings).toEqual([
      'plugin engine-broken: its engine:formats hook failed (Cannot find module ./missing.js); its formats are not available',
      'format "mp4" from plugin engine-dup is refused: engine (built-in) already registers a format with that name; one of them must be renamed or uninstalled',
      expect.stringContaining('format plugin "Bad" from plugin engine-dup is invalid'),
      'plugin engine-odd: its engine:formats hook must return a list of formats, not string; its formats are not available',
    ])
    // Registered with its methods guarded (an error in them names the plugin): the same fields, other functions.
    const {assemble: _assemble, requiredEncoders: _required, ...fields} = good as typeof good & {assemble: unknown}
    expect(getFormat('gif-from-good')).toMatchObject(fields)
    expect(formatSource('gif-from-good')).toBe('plugin engine-good')
    expect(formatSource('mp4')).toBe('engine (built-in)')
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
    expect(getFormat('mkv-ffv1')).toEqual(ffv1)

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

describe('format capabilities', () => {
  it('--gpu, --crf and --video-bitrate are refused by formats that do not use them, naming the format', () => {
    expect(() => assertFormatSupports(getFormat('webm'), {gpu: true})).toThrow(
      expect.objectContaining({code: 'INVALID_FLAG', message: '--gpu: the webm format has no hardware encoder; drop --gpu, or use a format that supports it (such as mp4)'}),
    )
    expect(() => assertFormatSupports(getFormat('gif'), {crf: 20})).toThrow(
      expect.objectContaining({code: 'INVALID_FLAG', message: '--crf: the gif format has no rate control, so --crf 20 would change nothing; drop --crf (use --quality instead)'}),
    )
    expect(() => assertFormatSupports(getFormat('png-sequence'), {videoBitrate: '5M'})).toThrow(/--video-bitrate: the png-sequence format has no rate control/)
    expect(() => assertFormatSupports(getFormat('mp4'), {gpu: true, crf: 20})).not.toThrow()
    expect(() => assertFormatSupports(getFormat('webm'), {crf: 20})).not.toThrow()
  })
})
