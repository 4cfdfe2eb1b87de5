import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {Config} from '@oclif/core'
import {isCompanion} from './companions.js'

export interface InstalledPlugin {
  name: string
  version: string
  /** Directory holding the plugin's package.json (its hooks are relative to it). */
  root: string
  /** `user`: installed with `engine plugins install`; `link`: linked with `engine plugins link`. */
  type: 'user' | 'link'
}

/**
 * The plugins the user installed or linked (`$ENGINE_DATA_DIR`), as oclif resolves them: what a
 * bundle for another machine (a Lambda zip, a container) must carry so its renders know the same
 * formats. Core plugins (help, plugins, autocomplete) are not listed, nor the first-party
 * companions (html-video-engine-lambda), which bring commands and no engine hooks.
 */
export async function listInstalledPlugins(): Promise<InstalledPlugin[]> {
  const config = await Config.load(import.meta.url)
  return [...config.plugins.values()]
    .filter((plugin): plugin is typeof plugin & {type: 'user' | 'link'} => (plugin.type === 'user' || plugin.type === 'link') && !isCompanion(plugin.name))
    .map((plugin) => ({name: plugin.name, version: plugin.version, root: plugin.root, type: plugin.type}))
}

/**
 * The user's plugins in the order they were installed or linked: the order of the list oclif keeps
 * in `<dataDir>/package.json`. oclif loads plugins concurrently, so the order of its own plugin map
 * can change from run to run; where two plugins claim one name, this order decides, every time.
 */
export async function userPluginOrder(dataDir: string): Promise<string[]> {
  try {
    const pjson = JSON.parse(await readFile(join(dataDir, 'package.json'), 'utf8')) as {oclif?: {plugins?: Array<string | {name?: string}>}}
    return (pjson.oclif?.plugins ?? []).flatMap((entry) => (typeof entry === 'string' ? [entry] : entry.name ? [entry.name] : []))
  } catch {
    return []
  }
}
