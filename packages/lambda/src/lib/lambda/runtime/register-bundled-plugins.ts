import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {registerHookOutcome, type HookOutcome, type PluginHookName} from 'html-video-engine/internal/lib/encode/register-plugin-hooks.js'
import {BUNDLE_LAYOUT} from '../bundle/bundle-layout.js'
import type {BundledPlugin} from '../bundle/plugin-files.js'

/**
 * At cold start, registers the formats and GPU encoders of the plugins the bundle carries
 * (`plugins/index.json`), the way the CLI's init hook does: each hook module is called with the
 * plugin API, and a failing plugin is a warning in the function's log that leaves the others.
 */
export async function registerBundledPlugins(taskRoot: string, api: unknown, warn: (message: string) => void = console.warn): Promise<void> {
  const listed = await readFile(join(taskRoot, BUNDLE_LAYOUT.plugins, 'index.json'), 'utf8').catch(() => undefined)
  if (listed === undefined) return
  const plugins = JSON.parse(listed) as BundledPlugin[]
  for (const hook of ['engine:formats', 'engine:gpu-encoders'] as const satisfies readonly PluginHookName[]) {
    const outcome: {successes: HookOutcome['successes'][number][]; failures: HookOutcome['failures'][number][]} = {successes: [], failures: []}
    for (const plugin of plugins) {
      for (const entry of plugin.hooks.filter((candidate) => candidate.hook === hook)) {
        try {
          const module = (await import(pathToFileURL(join(taskRoot, entry.module)).href)) as {default: (options: {api: unknown}) => unknown}
          outcome.successes.push({plugin, result: await module.default({api})})
        } catch (error) {
          outcome.failures.push({plugin, error})
        }
      }
    }
    registerHookOutcome(hook, outcome, ({message}) => warn(message))
  }
}
