import {existsSync} from 'node:fs'
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {decideHdrOutput} from '../../src/lib/encode/hdr-output.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {parseRenderOptions, type RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {decodedFrameHashes, ffprobe, probeVideoStream} from '../support/media.js'
import {runCli} from '../support/run-cli.js'
import {decode, ffmpeg} from './media-support.js'
import {useBrowserPool} from '../support/browser-pool.js'
import {PROCESSES} from '../support/timeouts.js'

const WIDTH = 320
const HEIGHT = 180
const PQ_SOURCE = 'pq.mp4'
const HLG_SOURCE = 'hlg.mp4'

/** Left half white, right half black, with an optional video over the top band. */
function page(video?: string): string {
  return `<!doctype html>
<html>
<head><style>
  html, body { margin: 0; background: #000; }
  #white { position: absolute; left: 0; top: 0; width: 160px; height: 180px; background: #fff; }
  video { position: absolute; left: 0; top: 0; width: 320px; height: 60px; }
</style></head>
<body>
  <div id="root" data-composition-id="hdr" data-width="${WIDTH}" data-height="${HEIGHT}" data-duration="1">
    <div id="white"></div>
    ${video ? `<video id="v" src="${video}" data-start="0" data-duration="1"></video>` : ''}
  </div>
</body>
</html>`
}

function hdrSource(transfer: string, output: string): Promise<void> {
  return ffmpeg([
    '-f', 'lavfi', '-i', `testsrc2=size=${WIDTH}x${HEIGHT}:rate=30:duration=1`,
    '-c:v', 'libx265', '-pix_fmt', 'yuv420p10le', '-x265-params', 'log-level=error',
    '-color_trc', transfer, '-color_primaries', 'bt2020', '-colorspace', 'bt2020nc', output,
  ])
}

/** 10-bit luma of pixel (x, y) in the first decoded frame. */
async function lumaCode(file: string, x: number, y: number): Promise<number> {
  const raw = await decode(['-i', file, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'yuv420p10le', '-'])
  return raw.readUInt16LE((y * WIDTH + x) * 2)
}

describe('HDR output', PROCESSES, () => {
  const pool = useBrowserPool()
  let dir: string
  let restoreEnv: (() => void) | undefined

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-hdr-test-'))
    restoreEnv = overrideEnv({ENGINE_CACHE_DIR: join(dir, 'cache')})
    await Promise.all([hdrSource('smpte2084', join(dir, PQ_SOURCE)), hdrSource('arib-std-b67', join(dir, HLG_SOURCE))])
  })

  afterAll(async () => {
    restoreEnv?.()
    await rm(dir, {recursive: true, force: true})
  })

  async function render(name: string, html: string, options: RenderOptionsInput = {}) {
    const composition = join(dir, `${name}.html`)
    await writeFile(composition, html)
    const events: RenderEvent[] = []
    const output = join(dir, 'out', `${name}.${options.format ?? 'mp4'}`)
    await renderComposition({composition, options: resolveRenderOptions({quality: 'draft', workers: 1, ...options, output}), pool, onEvent: (event) => events.push(event)})
    const done = events.find((event) => event.type === 'done')
    const warnings = events.flatMap((event) => (event.type === 'warning' ? [event.code] : []))
    return {output, hdr: done?.type === 'done' ? done.hdr : undefined, warnings}
  }

  it('--hdr writes tagged 10-bit HEVC in BT.2020 PQ with HDR10 metadata, page white at 203 nits', async () => {
    const {output, hdr} = await render('forced', page(), {hdr: true})
    expect(hdr).toBe('pq')
    const stream = await probeVideoStream(output)
    expect(stream).toMatchObject({
      codec_name: 'hevc',
      pix_fmt: 'yuv420p10le',
      color_primaries: 'bt2020',
      color_transfer: 'smpte2084',
      color_space: 'bt2020nc',
      nb_read_frames: '30',
    })
    expect((stream as unknown as {codec_tag_string: string}).codec_tag_string).toBe('hvc1')
    const first = await ffprobe(output, ['-select_streams', 'v:0', '-read_intervals', '%+#1', '-show_frames', '-show_entries', 'frame=side_data_list'])
    const sideData = ((first.frames as {side_data_list?: {side_data_type: string}[]}[])[0].side_data_list ?? []).map((data) => data.side_data_type)
    expect(sideData).toEqual(expect.arrayContaining(['Mastering display metadata', 'Content light level metadata']))
    // PQ(203 / 10000) = 0.5806 -> 64 + 0.5806 * 876 = 573 in 10-bit limited range.
    expect(Math.abs((await lumaCode(output, 80, 90)) - 573)).toBeLessThanOrEqual(4)
    expect(Math.abs((await lumaCode(output, 240, 90)) - 64)).toBeLessThanOrEqual(4)
  })

  it('follows PQ sources without a flag, and --sdr keeps H.264', async () => {
    const auto = await render('auto-pq', page(PQ_SOURCE))
    expect(auto.hdr).toBe('pq')
    expect(await probeVideoStream(auto.output, false)).toMatchObject({codec_name: 'hevc', color_transfer: 'smpte2084'})

    const sdr = await render('forced-sdr', page(PQ_SOURCE), {sdr: true})
    expect(sdr.hdr).toBeNull()
    expect(await probeVideoStream(sdr.output, false)).toMatchObject({codec_name: 'h264', pix_fmt: 'yuv420p', color_transfer: 'bt709'})
  })

  it('follows HLG sources with an HLG output', async () => {
    const {output, hdr} = await render('auto-hlg', page(HLG_SOURCE))
    expect(hdr).toBe('hlg')
    expect(await probeVideoStream(output, false)).toMatchObject({codec_name: 'hevc', color_transfer: 'arib-std-b67', color_primaries: 'bt2020'})
    // BT.2408: page white at 203 nits is the 75% HLG signal, 64 + 0.75 * 876 = 721.
    expect(Math.abs((await lumaCode(output, 80, 120)) - 721)).toBeLessThanOrEqual(4)
  })

  it('renders HDR sources in a webm as SDR and warns', async () => {
    const {output, hdr, warnings} = await render('auto-webm', page(PQ_SOURCE), {format: 'webm'})
    expect(hdr).toBeNull()
    expect(warnings).toContain('hdr-sources-rendered-sdr')
    expect(await probeVideoStream(output, false)).toMatchObject({codec_name: 'vp9'})
  })

  it('refuses --hdr with webm before writing anything', async () => {
    const composition = join(dir, 'refused.html')
    await writeFile(composition, page())
    const output = join(dir, 'out', 'refused.webm')
    const result = await runCli(['render', composition, '--hdr', '--format', 'webm', '-o', output])
    expect(result.code).not.toBe(0)
    expect(result.stderr).toMatch(/--hdr/)
    expect(result.stderr).toMatch(/--format mp4/)
    expect(existsSync(output)).toBe(false)
  })

  it('joins HDR segments of two workers by stream copy into the same decoded frames as one worker', async () => {
    const one = await render('workers-1', page(PQ_SOURCE), {crf: 0, workers: 1})
    const two = await render('workers-2', page(PQ_SOURCE), {crf: 0, workers: 2})
    const [hashesOne, hashesTwo] = await Promise.all([decodedFrameHashes(one.output), decodedFrameHashes(two.output)])
    expect(hashesOne).toHaveLength(30)
    expect(hashesTwo).toEqual(hashesOne)
  })
})

describe('HDR decision', PROCESSES, () => {
  const request = {hdr: false, sdr: false, format: 'mp4', gpu: false}

  it('forces, rules out or follows the sources', () => {
    expect(decideHdrOutput({...request, hdr: true})).toEqual({transfer: 'pq'})
    expect(decideHdrOutput({...request, hdr: true, sources: 'hlg'})).toEqual({transfer: 'hlg'})
    expect(decideHdrOutput({...request, sdr: true, sources: 'pq'})).toEqual({})
    expect(decideHdrOutput({...request, sources: 'hlg'})).toEqual({transfer: 'hlg'})
    expect(decideHdrOutput(request)).toEqual({})
  })

  it('renders HDR sources as SDR with a warning when the encoder cannot carry HDR', () => {
    expect(decideHdrOutput({...request, gpu: true, sources: 'pq'}).warning?.message).toMatch(/PQ HDR sources but renders SDR: --gpu/)
  })

  it('refuses --hdr with --gpu or a non-mp4 format when the options are parsed', () => {
    expect(() => parseRenderOptions({hdr: true, gpu: true})).toThrow(/--hdr cannot be combined with --gpu/)
    expect(() => parseRenderOptions({hdr: true, format: 'gif'})).toThrow(/--hdr needs --format mp4 .*not gif: use --format mp4/)
  })
})
