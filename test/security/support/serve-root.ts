import {mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

/** A composition of the given size and length with one declared variable, `color`. */
export function compositionHtml(width: number, height: number, durationSeconds: number): string {
  return `<!doctype html>
<html data-composition-variables='[{"id": "color", "type": "color", "label": "Fill", "default": "#808080"}]'>
<head><style>html, body { margin: 0; } .fill { position: absolute; inset: 0; }</style></head>
<body>
  <div data-composition-id="main" data-width="${width}" data-height="${height}" data-duration="${durationSeconds}"><div class="fill"></div></div>
  <script>document.querySelector('.fill').style.background = __engine.getVariables().color</script>
</body>
</html>
`
}

export interface ServeRoot {
  /** The server's --root, holding the given compositions. */
  root: string
  /** The server's --output-dir. */
  outputs: string
  /** Everything left in the output directory (empty when nothing was rendered). */
  outputEntries(): Promise<string[]>
  remove(): Promise<void>
}

export async function makeServeRoot(files: Record<string, string>): Promise<ServeRoot> {
  const base = await mkdtemp(join(tmpdir(), 'engine-security-'))
  const root = join(base, 'root')
  const outputs = join(base, 'outputs')
  await mkdir(root)
  await mkdir(outputs)
  for (const [name, html] of Object.entries(files)) await writeFile(join(root, name), html)
  return {
    root,
    outputs,
    outputEntries: () => readdir(outputs),
    remove: () => rm(base, {recursive: true, force: true}),
  }
}
