import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {oneOf} from '../errors/one-of.js'
import {packageRoot} from '../sandbox/package-root.js'

export const DEFAULT_TEMPLATE = 'hello'

/** The shipped example projects: every folder of `examples/` that has a composition (`index.html`). */
export function templatesDir(root: string = packageRoot()): string {
  return join(root, 'examples')
}

export async function listTemplates(directory: string = templatesDir()): Promise<string[]> {
  const entries = await readdir(directory, {withFileTypes: true})
  const names: string[] = []
  for (const entry of entries) {
    if (!entry.isDirectory()) continue
    const files = await readdir(join(directory, entry.name))
    if (files.includes('index.html')) names.push(entry.name)
  }
  return names.sort()
}

/** The folder of template `name`; an unknown name is an error listing the ones there are. */
export async function templateDir(name: string, directory: string = templatesDir()): Promise<string> {
  const names = await listTemplates(directory)
  if (!names.includes(name)) {
    throw new EngineError('INVALID_FLAG', `--template: no template "${name}"; choose ${oneOf(names)}`, {field: '--template', value: name, templates: names})
  }
  return join(directory, name)
}
