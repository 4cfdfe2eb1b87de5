import type {DoctorCheck} from './doctor-check.js'

export interface PluginsToCheck {
  /** The user's plugins (installed or linked). */
  installed: ReadonlyArray<{name: string; version: string; type: string}>
  /** What went wrong with them in this run (hooks that threw, timed out, failed to load…). */
  problems: ReadonlyArray<{plugin: string; message: string}>
  /** False under `doctor --safe`: no plugin hook ran, so nothing about them was tried. */
  hooksRan: boolean
}

/** The user's plugins, and the ones that failed in this run with the command that removes each. */
export function checkPlugins(plugins: PluginsToCheck): DoctorCheck {
  const listed = plugins.installed.map((plugin) => `${plugin.name} ${plugin.version} (${plugin.type})`)
  // The plugins as data: oclif's plugin objects carry their whole configuration (hundreds of KB).
  const installed = plugins.installed.map(({name, version, type}) => ({name, version, type}))
  const info = {installed, problems: plugins.problems.map(({plugin, message}) => ({plugin, message})), hooksRan: plugins.hooksRan}
  if (listed.length === 0) return {name: 'plugins', status: 'ok', required: false, summary: 'none installed', info}
  if (!plugins.hooksRan) return {name: 'plugins', status: 'ok', required: false, summary: `not run (--safe): ${listed.join(', ')}`, info}
  const failed = [...new Set(plugins.problems.map((problem) => problem.plugin))]
  if (failed.length === 0) return {name: 'plugins', status: 'ok', required: false, summary: listed.join(', '), info}
  const remove = failed.map((name) => {
    const type = plugins.installed.find((plugin) => plugin.name === name)?.type
    return `engine plugins ${type === 'link' ? 'unlink' : 'uninstall'} ${name}`
  })
  return {
    name: 'plugins',
    status: 'warning',
    required: false,
    summary: plugins.problems.map((problem) => problem.message).join('; '),
    fix: `${remove.join(', ')} (or run with ENGINE_NO_PLUGINS=1)`,
    info,
  }
}
