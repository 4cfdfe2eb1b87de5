import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, describe, expect, it} from 'vitest'
import {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderStill} from '../../src/lib/still/render-still.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {useScratchDir} from '../support/scratch-dir.js'
import {PROCESSES} from '../support/timeouts.js'

const exec = promisify(execFile)

const GOLDEN = join(REPO_ROOT, 'test', 'fixtures', 'golden')
const REFERENCES = join(GOLDEN, 'references')
/** References are stored and compared at this size: enough to see a change of layout, colour or text. */
const [WIDTH, HEIGHT] = [160, 90]
/**
 * Under the threshold a frame has changed. The same machine redraws a frame bit for bit (infinite
 * PSNR); another machine's font rasteriser or encoder build moves anti-aliased edges, which at
 * 160x90 stays well above 32 dB, while a moved, recoloured or missing element, or other text,
 * falls below it (the last test shows one).
 */
const THRESHOLD_DB = 32
/** Set only by scripts/update-golden-frames.sh. */
const UPDATE = process.env.ENGINE_GOLDEN_UPDATE === '1'

interface Golden {
  name: string
  composition: string
  /** Draws at most 480 pixels wide: the frames are scaled down to 160x90 anyway. */
  scale: number
  frames: number[]
  variables?: Record<string, unknown>
}

const corpus = (block: string) => join(GOLDEN, 'corpus', block, 'index.html')

/** Ours (examples and fixtures) and five public blocks, two frames each where they show most. */
const SET: Golden[] = [
  {name: 'hello', composition: join(REPO_ROOT, 'examples/hello/index.html'), scale: 0.25, frames: [60, 110]},
  {name: 'lower-third', composition: join(REPO_ROOT, 'examples/lower-third/index.html'), scale: 0.25, frames: [10, 80]},
  {name: 'card', composition: join(REPO_ROOT, 'test/batch/fixtures/card.html'), scale: 1, frames: [0, 7], variables: {title: 'Golden'}},
  {name: 'animations', composition: join(REPO_ROOT, 'test/fixtures/pages/animations.html'), scale: 1, frames: [6, 30]},
  {name: 'motion', composition: join(REPO_ROOT, 'test/fixtures/pages/motion.html'), scale: 1, frames: [3, 27]},
  {name: 'lt-kicker-name', composition: corpus('lt-kicker-name'), scale: 0.25, frames: [20, 130]},
  {name: 'lt-accent-underline', composition: corpus('lt-accent-underline'), scale: 0.25, frames: [60, 130]},
  {name: 'code-typing', composition: corpus('code-typing'), scale: 0.25, frames: [75, 140]},
  {name: 'transitions-push', composition: corpus('transitions-push'), scale: 0.25, frames: [60, 330]},
  {name: 'macos-notification', composition: corpus('macos-notification'), scale: 0.25, frames: [70, 140]},
]

/** RGB bytes of `png` scaled to the comparison size, by one ffmpeg filter for references and new frames alike. */
async function pixels(png: string): Promise<Buffer> {
  const {stdout} = await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-i', png, '-vf', `scale=${WIDTH}:${HEIGHT}:flags=area`, '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-'], {
    encoding: 'buffer',
    maxBuffer: 16 * 1024 * 1024,
  })
  return stdout
}

function psnr(a: Buffer, b: Buffer): number {
  expect(a.length).toBe(b.length)
  let squares = 0
  for (let i = 0; i < a.length; i++) squares += (a[i] - b[i]) ** 2
  return squares === 0 ? Infinity : 10 * Math.log10((255 * 255 * a.length) / squares)
}

const referencePath = (name: string, frame: number) => join(REFERENCES, `${name}-${frame}.png`)

describe(`golden frames: ${SET.length} compositions drawn under the deterministic profile match their references (PSNR >= ${THRESHOLD_DB} dB at ${WIDTH}x${HEIGHT})`, PROCESSES, () => {
  const scratch = useScratchDir('engine-golden-')
  const pool = new BrowserPool({maxIdle: 1})
  afterAll(() => pool.close())

  async function draw(golden: Golden, frame: number, variables = golden.variables): Promise<string> {
    const output = join(scratch(), `${golden.name}-${frame}.png`)
    const options = resolveRenderOptions({profile: 'deterministic', scale: golden.scale, output})
    await renderStill({composition: golden.composition, options, still: {frame}, variables, pool, cache: false})
    return output
  }

  for (const golden of SET) {
    it(`${golden.name}: frames ${golden.frames.join(', ')}`, async () => {
      if (UPDATE) {
        expect(process.env.CI, 'references are redrawn by scripts/update-golden-frames.sh, never in CI').toBeUndefined()
        await mkdir(REFERENCES, {recursive: true})
      }
      for (const frame of golden.frames) {
        const drawn = await draw(golden, frame)
        const reference = referencePath(golden.name, frame)
        if (UPDATE) await exec('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-i', drawn, '-vf', `scale=${WIDTH}:${HEIGHT}:flags=area`, reference])
        expect(existsSync(reference), `${reference} is missing: run scripts/update-golden-frames.sh`).toBe(true)
        const db = psnr(await pixels(drawn), await pixels(reference))
        expect(db, `${golden.name} frame ${frame}: ${db.toFixed(1)} dB against its reference`).toBeGreaterThanOrEqual(THRESHOLD_DB)
      }
    })
  }

  it('a change of drawing falls under the threshold: the card with another title, against its reference', async () => {
    const card = SET.find((golden) => golden.name === 'card')!
    const drawn = await draw(card, card.frames[1], {title: 'Changed'})
    const db = psnr(await pixels(drawn), await pixels(referencePath('card', card.frames[1])))
    expect(db).toBeLessThan(THRESHOLD_DB)
  })
})
