import {join} from 'node:path'
import type {BrowserPool} from '../../src/lib/browser/browser-pool.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition, type RenderResult} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {REPO_ROOT} from '../support/run-cli.js'
import {useScratchDir as scratchDir} from '../support/scratch-dir.js'

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'render')

/** Call at describe level: a scratch directory made before the tests and removed after them. */
export const useScratchDir = (): (() => string) => scratchDir('engine-render-test-')

/** Renders a fixture in-process with the given options (in `pool`'s browsers if given); returns the result and every event. */
export async function renderFixture(
  fixture: string,
  options: RenderOptionsInput,
  variables?: Record<string, unknown>,
  pool?: BrowserPool,
): Promise<RenderResult & {events: RenderEvent[]}> {
  const events: RenderEvent[] = []
  const result = await renderComposition({
    composition: join(FIXTURES, fixture),
    options: resolveRenderOptions({quality: 'draft', ...options}),
    variables,
    pool,
    onEvent: (event) => events.push(event),
  })
  return {...result, events}
}
