import {mkdir, writeFile} from 'node:fs/promises'
import {basename, dirname, join} from 'node:path'
import type {InstalledPlugin} from '../config/installed-plugins.js'
import type {PathMapping} from './container-paths.js'

/** What the engine inside the container needs to load the user's plugins. */
export interface ContainerPlugins {
  /** Host directories to mount read-only: each plugin's code and the plugin list. */
  directories: string[]
  /** `ENGINE_DATA_DIR` inside: oclif reads the plugin list from `<it>/package.json`. */
  env: Record<string, string>
}

/**
 * Hands the user's installed and linked plugins to the engine inside the container, so a format a
 * plugin adds renders there too. Every plugin is listed as linked to its directory, mounted at its
 * own path: a linked plugin's root; for an installed one the whole node_modules it lives in, so
 * that its dependencies resolve. The list is written to `<scratch>/engine-data/package.json`.
 */
export async function containerPlugins(plugins: readonly InstalledPlugin[], scratch: string, mapping: PathMapping): Promise<ContainerPlugins | undefined> {
  if (plugins.length === 0) return undefined
  const dataDir = join(scratch, 'engine-data')
  const code = plugins.map((plugin) => (plugin.type === 'user' ? nodeModulesOf(plugin.root) : plugin.root))
  const list = plugins.map((plugin) => ({type: 'link', name: plugin.name, root: mapping.toContainer(plugin.root)}))
  await mkdir(dataDir, {recursive: true})
  await writeFile(join(dataDir, 'package.json'), JSON.stringify({private: true, oclif: {schema: 1, plugins: list}}, null, 2))
  return {directories: [...new Set([...code, dataDir])], env: {ENGINE_DATA_DIR: mapping.toContainer(dataDir)}}
}

/** The node_modules directory a package installed by npm sits in (`…/node_modules/@scope/name`). */
function nodeModulesOf(root: string): string {
  for (let directory = dirname(root); dirname(directory) !== directory; directory = dirname(directory)) {
    if (basename(directory) === 'node_modules') return directory
  }
  return root
}
