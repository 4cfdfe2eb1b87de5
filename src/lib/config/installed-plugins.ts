import {Config} from '@oclif/core'

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
 * formats. Core plugins (help, plugins, autocomplete) are not listed.
 */
export async function listInstalledPlugins(): Promise<InstalledPlugin[]> {
  const config = await Config.load(import.meta.url)
  return [...config.plugins.values()]
    .filter((plugin): plugin is typeof plugin & {type: 'user' | 'link'} => plugin.type === 'user' || plugin.type === 'link')
    .map((plugin) => ({name: plugin.name, version: plugin.version, root: plugin.root, type: plugin.type}))
}
