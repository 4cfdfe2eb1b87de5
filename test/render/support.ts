import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll} from 'vitest'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition, type RenderResult} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {REPO_ROOT} from '../support/run-cli.js'

export const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'render')

/** Call at describe level: a scratch directory made before the tests and removed after them. */
export function useScratchDir(): () => string {
  let dir: string | undefined
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-render-test-'))
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })
  return () => dir!
}

/** Renders a fixture in-process with the given options; returns the result and every event. */
export async function renderFixture(
  fixture: string,
  options: RenderOptionsInput,
  variables?: Record<string, unknown>,
): Promise<RenderResult & {events: RenderEvent[]}> {
  const events: RenderEvent[] = []
  const result = await renderComposition({
    composition: join(FIXTURES, fixture),
    options: resolveRenderOptions({quality: 'draft', ...options}),
    variables,
    onEvent: (event) => events.push(event),
  })
  return {...result, events}
}
