import {mkdir, readdir, readFile, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import type {RenderOptionsInput} from '../../src/lib/plan/render-options.js'
import {renderComposition, type RenderResult} from '../../src/lib/render/render-composition.js'
import type {RenderEvent} from '../../src/lib/render/render-events.js'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {useScratchDir} from '../support/scratch-dir.js'

/** A project folder per test file: compositions written the ways authors write them, rendered in-process. */
export function useProject(): {dir: () => string; write: (name: string, content: string | Buffer) => Promise<string>} {
  const dir = useScratchDir('engine-wild-')
  return {
    dir,
    write: async (name, content) => {
      const path = join(dir(), name)
      await mkdir(dirname(path), {recursive: true})
      await writeFile(path, content)
      return path
    },
  }
}

/** A page of `body` at 320x180 with the root attributes given (no data-duration unless asked). */
export function page(body: string, root: {attributes?: string; head?: string} = {}): string {
  return `<!doctype html>
<html data-composition-id="main" data-width="320" data-height="180" ${root.attributes ?? 'data-duration="1"'}>
<head><style>html, body { margin: 0; }</style>${root.head ?? ''}</head>
<body>${body}</body>
</html>`
}

export async function render(composition: string, options: RenderOptionsInput, variables?: Record<string, unknown>): Promise<RenderResult & {events: RenderEvent[]; warnings: {code: string; message: string}[]}> {
  const events: RenderEvent[] = []
  const result = await renderComposition({
    composition,
    options: resolveRenderOptions({quality: 'draft', fps: 10, workers: 1, ...options}),
    variables,
    onEvent: (event) => events.push(event),
  })
  const warnings = events.flatMap((event) => (event.type === 'warning' ? [{code: event.code, message: event.message}] : []))
  return {...result, events, warnings}
}

/** The PNG frames of a png-sequence output, by name. */
export async function frames(directory: string): Promise<Map<string, Buffer>> {
  const names = (await readdir(directory)).filter((name) => name.endsWith('.png')).sort()
  return new Map(await Promise.all(names.map(async (name) => [name, await readFile(join(directory, name))] as const)))
}

export const SLOW = {timeout: 300_000}
