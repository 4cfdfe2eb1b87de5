import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import type {RenderPlan} from '../../../src/lib/plan/render-plan.js'
import type {RuntimeInstance} from '../../../src/lib/compose/runtime-instance.js'
import {segmentFrames} from '../../../src/lib/plan/segment-grid.js'
import {pageBaseUrl} from '../../../src/lib/plan/plan-render.js'
import {DEFAULT_NETWORK, type NetworkSettings} from '../../../src/lib/sandbox/network-settings.js'

export const PAGES_DIR = join(import.meta.dirname, '../../fixtures/pages')
/** The fixture pages belong to this repository's project. */
export const REPO_DIR = join(import.meta.dirname, '../../..')
export const WIDTH = 320
export const HEIGHT = 180

export interface PagePlanOptions {
  variables?: Record<string, unknown>
  instances?: Record<string, RuntimeInstance>
  durationSeconds?: number
  fps?: {num: number; den: number}
  imageFormat?: 'jpeg' | 'png'
  transparent?: boolean
  seed?: number
  /** What the page may reach (default: public URLs only, as in a render). */
  network?: NetworkSettings
}

/** A render plan for a fixture page (or inline HTML), served as test/fixtures/pages/index.html of this repository. */
export function pagePlan(page: string, options: PagePlanOptions = {}): RenderPlan {
  const html = page.trimStart().startsWith('<') ? page : readFileSync(join(PAGES_DIR, page), 'utf8')
  const fps = options.fps ?? {num: 30, den: 1}
  const durationSeconds = options.durationSeconds ?? 2
  const imageFormat = options.imageFormat ?? 'jpeg'
  return {
    html,
    baseUrl: pageBaseUrl(REPO_DIR, join(PAGES_DIR, 'index.html')),
    projectDir: REPO_DIR,
    network: options.network ?? DEFAULT_NETWORK,
    runtime: {
      compositionId: 'main',
      fps,
      durationSeconds,
      width: WIDTH,
      height: HEIGHT,
      variables: options.variables ?? {},
      instances: options.instances ?? {},
      seed: options.seed ?? 7,
    },
    width: WIDTH,
    height: HEIGHT,
    fps,
    totalFrames: Math.ceil((durationSeconds * fps.num) / fps.den),
    segmentFrames: segmentFrames(fps, Math.ceil((durationSeconds * fps.num) / fps.den)),
    format: imageFormat === 'png' ? 'png-sequence' : 'mp4',
    capture: {imageFormat, jpegQuality: 90, transparent: options.transparent ?? false},
    encode: {quality: 'draft', gifLoop: 0, gpu: false},
  }
}
