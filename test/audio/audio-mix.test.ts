import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {ffprobe} from '../support/media.js'
import {ffmpeg, frameBrightness} from '../media/media-support.js'
import {decodeChannels, frequencyOf, rmsDb, soundSpan, toneDb} from './audio-measure.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {PROCESSES} from '../support/timeouts.js'

/** Every test tone peaks at 0.25 (-12.04 dBFS), so a sine's RMS is -15.05 dBFS. */
const AMPLITUDE = 0.25
const PEAK_DB = 20 * Math.log10(AMPLITUDE)
const RMS_DB = PEAK_DB - 20 * Math.log10(Math.SQRT2)
/** Quieter than this is silence (the AAC encoder's noise around a tone is far below it). */
const SILENCE_DB = -70
/** Sound must start and stop where the clip says, to well within one frame at 30 fps (33 ms). */
const ON_TIME = 0.005
/**
 * A time-stretched clip (a rate other than 1) may land a little early: its stretch works on
 * ~21 ms windows and may shift sound by up to half a window divided by the rate. One frame.
 */
const STRETCHED_ON_TIME = 1 / 30
/** Level error allowed through mixing and AAC encoding. */
const LEVEL_DB = 0.3

/** A tone of `frequency` Hz only where `when` (an ffmpeg expression of t) is true, silent elsewhere. */
function tone(frequency: number, when = '1'): string {
  return `${AMPLITUDE}*sin(2*PI*${frequency}*t)*(${when})`
}

function page(body: string, duration: number): string {
  return `<!doctype html>
<html>
<head><style>html, body { margin: 0; background: #000; } video { position: absolute; left: 0; top: 0; width: 320px; height: 180px; }</style></head>
<body>
  <div id="root" data-composition-id="audio" data-width="320" data-height="180" data-duration="${duration}">
    ${body}
  </div>
</body>
</html>`
}

describe('the audio track', PROCESSES, () => {
  const pool = useBrowserPool()
  let dir: string
  let restoreEnv: (() => void) | undefined

  /** Writes a 48 kHz WAV from one aevalsrc expression per channel. */
  async function wav(name: string, seconds: number, ...channels: string[]): Promise<void> {
    const layout = channels.length === 1 ? 'mono' : 'stereo'
    await ffmpeg(['-f', 'lavfi', '-i', `aevalsrc=exprs='${channels.join('|')}':s=48000:c=${layout}:d=${seconds}`, '-c:a', 'pcm_f32le', join(dir, name)])
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-audio-test-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache')})
    await wav('tone.wav', 0.3, tone(1000), tone(1000))
    await wav('tone-mono.wav', 0.3, tone(1000))
    // 500 Hz for the first half second, then 1000 Hz: which part plays shows where playback starts.
    await wav('two-tone.wav', 1, tone(500, 'lt(t,0.5)') + '+' + tone(1000, 'gte(t,0.5)'))
    // 0.2 s of 1000 Hz between 0.1 s and 0.3 s of a 0.4 s source.
    await wav('burst.wav', 0.4, tone(1000, 'between(t,0.1,0.3)'))
    await wav('low.wav', 1, tone(500), tone(500))
    await wav('high.wav', 1, tone(1500), tone(1500))
    await wav('long.wav', 3, tone(1000), tone(1000))
    // A 2 s clip that flashes white and beeps together, from 1.0 s to 1.2 s of its own time.
    await ffmpeg([
      '-f', 'lavfi', '-i', `color=c=black:s=320x180:r=30:d=2,drawbox=x=0:y=0:w=iw:h=ih:color=white:t=fill:enable='between(t,1,1.19)'`,
      '-f', 'lavfi', '-i', `aevalsrc=exprs='${tone(1000, 'between(t,1,1.2)')}':s=48000:c=stereo:d=2`,
      '-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-b:a', '192k', '-shortest', join(dir, 'flash.mp4'),
    ])
  })

  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  /** At 10 fps unless a test looks at the picture: the track is mixed from the clips' times, whatever the frame rate. */
  async function render(name: string, html: string, options: RenderOptionsInput = {}): Promise<string> {
    const composition = join(dir, `${name}.html`)
    await writeFile(composition, html)
    const output = join(dir, 'out', `${name}.${options.format ?? 'mp4'}`)
    await renderComposition({composition, options: resolveRenderOptions({quality: 'draft', workers: 1, fps: 10, ...options, output}), pool})
    return output
  }

  it('data-volume is a linear gain: 0.5 is -6 dB and 2 is +6 dB against 1, which keeps the source level; 0 is silent', async () => {
    const starts = {1: 0.1, 0.5: 0.6, 2: 1.1, 0: 1.6}
    const clips = Object.entries(starts).map(([volume, start]) => `<audio src="tone.wav" data-start="${start}" data-volume="${volume}"></audio>`)
    const output = await render('volume', page(clips.join('\n'), 2))
    for (const channel of await decodeChannels(output)) {
      const level = (start: number) => rmsDb(channel, start + 0.05, start + 0.25)
      expect(Math.abs(level(starts[1]) - RMS_DB)).toBeLessThan(LEVEL_DB)
      expect(Math.abs(level(starts[0.5]) - level(starts[1]) + 6.02)).toBeLessThan(LEVEL_DB)
      expect(Math.abs(level(starts[2]) - level(starts[1]) - 6.02)).toBeLessThan(LEVEL_DB)
      // Silence before the first clip, between the clips, under data-volume="0" and after the last.
      for (const [from, to] of [[0, 0.09], [0.45, 0.55], [0.95, 1.05], [1.45, 1.55], [1.6, 2]]) {
        expect(rmsDb(channel, from, to), `${from}-${to} s`).toBeLessThan(SILENCE_DB)
      }
    }
  })

  it('a mono source plays at its own level in both channels, as a browser plays it', async () => {
    const output = await render('mono', page(`<audio src="tone-mono.wav" data-start="0.2"></audio>`, 1))
    for (const channel of await decodeChannels(output)) {
      expect(Math.abs(rmsDb(channel, 0.25, 0.45) - RMS_DB)).toBeLessThan(LEVEL_DB)
      expect(Math.abs(soundSpan(channel).start - 0.2)).toBeLessThan(ON_TIME)
    }
  })

  it('data-start places a clip, data-playback-start skips into its source and data-duration cuts it', async () => {
    const output = await render('placed', page(`<audio src="two-tone.wav" data-start="0.3" data-playback-start="0.5" data-duration="0.25"></audio>`, 1))
    const [left] = await decodeChannels(output)
    const {start, end} = soundSpan(left)
    expect(Math.abs(start - 0.3)).toBeLessThan(ON_TIME)
    expect(Math.abs(end - 0.55)).toBeLessThan(ON_TIME)
    // The clip plays the 1000 Hz half of its source; the 500 Hz half before 0.5 s is skipped.
    expect(Math.abs(toneDb(left, 1000, 0.32, 0.53) - PEAK_DB)).toBeLessThan(LEVEL_DB)
    expect(toneDb(left, 500, 0.32, 0.53)).toBeLessThan(PEAK_DB - 40)
  })

  it('data-playback-rate changes how fast the source plays, not its pitch', async () => {
    // The source's 0.2 s burst starts 0.1 s in: at rate 2 it plays 0.05 s after the clip starts and
    // lasts 0.1 s; at rate 0.5 it plays 0.2 s after and lasts 0.4 s.
    const html = page(`<audio src="burst.wav" data-start="0.1" data-playback-rate="2"></audio>
      <audio src="burst.wav" data-start="0.5" data-playback-rate="0.5"></audio>`, 1.5)
    const [left] = await decodeChannels(await render('rate', html))
    const fast = soundSpan(left.subarray(0, 0.4 * 48_000))
    expect(Math.abs(fast.start - 0.15)).toBeLessThan(STRETCHED_ON_TIME)
    expect(Math.abs(fast.end - 0.25)).toBeLessThan(STRETCHED_ON_TIME)
    const slow = soundSpan(left.subarray(0.5 * 48_000))
    expect(Math.abs(slow.start - 0.2)).toBeLessThan(STRETCHED_ON_TIME)
    expect(Math.abs(slow.end - 0.6)).toBeLessThan(STRETCHED_ON_TIME)
    expect(frequencyOf(left, 0.17, 0.23)).toBeCloseTo(1000, -1)
    expect(frequencyOf(left, 0.75, 1.05)).toBeCloseTo(1000, -1)
  })

  it('a clip that starts before 0 at a playback rate skips that time times its rate into its source', async () => {
    // 0.4 s before the start at rate 0.5 is 0.2 s of source: 500 Hz plays until source 0.5 s, at 0.6 s of the video.
    const [left] = await decodeChannels(await render('early-rate', page(`<audio src="two-tone.wav" data-start="-0.4" data-playback-rate="0.5"></audio>`, 1)))
    expect(Math.abs(toneDb(left, 500, 0.3, 0.5) - PEAK_DB)).toBeLessThan(1)
    expect(toneDb(left, 1000, 0.3, 0.5)).toBeLessThan(PEAK_DB - 30)
    expect(Math.abs(toneDb(left, 1000, 0.7, 0.95) - PEAK_DB)).toBeLessThan(1)
  })

  it('<video data-has-audio> is heard in step with its picture, through its start, offset and rate; without the attribute it is silent', async () => {
    // Source second 1.0 (flash and beep) lands at 0.2 + (1.0 - 0.5) / 2 = 0.45 s.
    const html = page(`<video src="flash.mp4" data-has-audio data-start="0.2" data-playback-start="0.5" data-playback-rate="2"></video>
      <video src="flash.mp4" data-start="0.8" style="opacity: 0"></video>`, 2)
    const output = await render('video-sound', html, {fps: 30})
    const [left] = await decodeChannels(output)
    const beep = soundSpan(left)
    expect(Math.abs(beep.start - 0.45)).toBeLessThan(STRETCHED_ON_TIME)
    expect(Math.abs(beep.end - 0.55)).toBeLessThan(STRETCHED_ON_TIME)
    const flash = (await frameBrightness(output)).findIndex((brightness) => brightness > 128)
    expect(Math.abs(flash / 30 - beep.start)).toBeLessThanOrEqual(1 / 30)
    // The second video has no data-has-audio: its beep, due at 1.8 s, is never heard.
    expect(rmsDb(left, 1, 2)).toBeLessThan(SILENCE_DB)

    const silent = await render('video-silent', page(`<video src="flash.mp4" data-start="0" data-has-audio="false"></video>`, 1.5))
    expect(await ffprobe(silent, ['-show_entries', 'stream=codec_type'])).toMatchObject({streams: [{codec_type: 'video'}]})
  })

  it('clips that overlap are summed: each is heard at its own times and its own level', async () => {
    const output = await render('mix', page(`<audio src="low.wav" data-start="0.2"></audio><audio src="high.wav" data-start="0.7"></audio>`, 2))
    const [left] = await decodeChannels(output)
    const level = (frequency: number, from: number) => toneDb(left, frequency, from, from + 0.2)
    // 0.25-0.45 s: low only; 0.8-1.0 s: both; 1.4-1.6 s: high only.
    expect(Math.abs(level(500, 0.25) - PEAK_DB)).toBeLessThan(LEVEL_DB)
    expect(level(1500, 0.25)).toBeLessThan(PEAK_DB - 40)
    expect(Math.abs(level(500, 0.8) - PEAK_DB)).toBeLessThan(LEVEL_DB)
    expect(Math.abs(level(1500, 0.8) - PEAK_DB)).toBeLessThan(LEVEL_DB)
    expect(level(500, 1.4)).toBeLessThan(PEAK_DB - 40)
    expect(Math.abs(level(1500, 1.4) - PEAK_DB)).toBeLessThan(LEVEL_DB)
    expect(rmsDb(left, 1.75, 2)).toBeLessThan(SILENCE_DB)
  })

  it('mov carries the track as 48 kHz AAC as long as the video: a clip running past the end is cut', async () => {
    const output = await render('mov', page(`<audio src="long.wav" data-start="0.5"></audio>`, 1), {format: 'mov'})
    const probe = await ffprobe(output, ['-select_streams', 'a:0', '-show_entries', 'stream=codec_name,sample_rate,duration'])
    expect(probe.streams).toEqual([{codec_name: 'aac', sample_rate: '48000', duration: expect.any(String)}])
    expect(Number((probe.streams as {duration: string}[])[0].duration)).toBeCloseTo(1, 3)
    const [left] = await decodeChannels(output)
    expect(Math.abs(soundSpan(left).start - 0.5)).toBeLessThan(ON_TIME)
    expect(Math.abs(rmsDb(left, 0.55, 0.95) - RMS_DB)).toBeLessThan(LEVEL_DB)
    expect(rmsDb(left, 0, 0.45)).toBeLessThan(SILENCE_DB)
  })
})
