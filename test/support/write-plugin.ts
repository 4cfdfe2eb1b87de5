import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

/** A plugin written like a third-party one, in its own directory: `hooks` maps hook names to module sources. */
export async function writePlugin(dir: string, name: string, hooks: Record<string, string>): Promise<string> {
  const root = join(dir, name)
  await mkdir(root, {recursive: true})
  const files = Object.fromEntries(Object.keys(hooks).map((hook) => [hook, `./${hook.replace(':', '-')}.js`]))
  await writeFile(join(root, 'package.json'), JSON.stringify({name, version: '1.0.0', type: 'module', oclif: {hooks: files}}))
  for (const [hook, source] of Object.entries(hooks)) await writeFile(join(root, files[hook]), source)
  return root
}
