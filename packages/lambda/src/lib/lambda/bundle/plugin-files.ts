import {readFile, stat} from 'node:fs/promises'
import {join} from 'node:path'
import {build} from 'esbuild'
import type {InstalledPlugin} from 'html-video-engine/internal/lib/config/installed-plugins.js'
import type {PluginHookName} from 'html-video-engine/internal/lib/encode/register-plugin-hooks.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {BUNDLE_LAYOUT} from './bundle-layout.js'
import type {BundleFile} from './bundle-parts.js'

const HOOKS: readonly PluginHookName[] = ['engine:formats', 'engine:gpu-encoders']

/** One plugin in the bundle: its hooks, each compiled into one module (paths relative to the task root). */
export interface BundledPlugin {
  name: string
  version: string
  hooks: Array<{hook: PluginHookName; module: string}>
}

/**
 * The user's installed and linked plugins for the function: every `engine:formats` and
 * `engine:gpu-encoders` hook module compiled with its dependencies into one ES module under
 * `plugins/<n>/`, and `plugins/index.json` listing them for the cold start (registerBundledPlugins).
 * A plugin hook gets the plugin API as an argument, so nothing of the engine is bundled twice.
 */
export async function pluginFiles(plugins: readonly InstalledPlugin[], workDir: string): Promise<{files: BundleFile[]; plugins: BundledPlugin[]}> {
  const files: BundleFile[] = []
  const bundled: BundledPlugin[] = []
  for (const [index, plugin] of plugins.entries()) {
    const manifest = JSON.parse(await readFile(join(plugin.root, 'package.json'), 'utf8')) as {oclif?: {hooks?: Record<string, string | string[]>}}
    const hooks: BundledPlugin['hooks'] = []
    for (const hook of HOOKS) {
      const declared = manifest.oclif?.hooks?.[hook]
      for (const [position, entry] of (Array.isArray(declared) ? declared : declared ? [declared] : []).entries()) {
        const module = `${BUNDLE_LAYOUT.plugins}/${index}/${hook.replace(':', '-')}-${position}.mjs`
        const outfile = join(workDir, module)
        await compileHook(join(plugin.root, entry), outfile, plugin.name)
        files.push({name: module, source: outfile, bytes: (await stat(outfile)).size, part: `plugin ${plugin.name}`})
        hooks.push({hook, module})
      }
    }
    bundled.push({name: plugin.name, version: plugin.version, hooks})
  }
  const index = Buffer.from(JSON.stringify(bundled, null, 2) + '\n')
  files.push({name: `${BUNDLE_LAYOUT.plugins}/index.json`, source: index, bytes: index.length, part: 'plugins'})
  return {files, plugins: bundled}
}

async function compileHook(entry: string, outfile: string, plugin: string): Promise<void> {
  await build({entryPoints: [entry], outfile, bundle: true, platform: 'node', format: 'esm', target: 'node22', logLevel: 'silent', legalComments: 'none'}).catch((error: unknown) => {
    throw new EngineError('BUNDLE_FAILED', `plugin ${plugin}: its hook ${entry} cannot be bundled: ${error instanceof Error ? error.message : String(error)}`, {plugin, entry}, {cause: error})
  })
}
