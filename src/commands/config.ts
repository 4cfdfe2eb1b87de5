import {Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../cli/base-command.js'
import {loadProjectConfig, trustProjectConfigFlag} from '../cli/project-config.js'
import {flagName, RENDER_DEFAULTS} from '../lib/plan/render-options.js'

/** Environment values that are credentials: shown as set, never printed. */
const SECRET = /TOKEN|SECRET|PASSWORD|KEY/

export default class Config extends BaseCommand {
  static override summary = 'Print the effective configuration: each render option with its value and where it came from, and the ENGINE_* variables set'
  static override description =
    'A value comes from the config file found (or named with --config), else from the default; a flag given on a command line wins over both. Runs no plugin code.'
  static override examples = ['<%= config.bin %> config', '<%= config.bin %> config --json', '<%= config.bin %> config --config engine.config.json']
  static override flags = {
    json: Flags.boolean({description: 'print {file, options: {key: {value, source, flag}}, environment} as JSON'}),
    ...trustProjectConfigFlag,
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Config)
    const loaded = await loadProjectConfig(flags['trust-project-config'], this.config.configDir, flags.config)
    const fromFile = loaded.options as Record<string, unknown>
    // The rate has no fixed default: a render takes the composition root's data-fps, else 30.
    const defaults = {...RENDER_DEFAULTS, fps: "the composition root's data-fps, else 30"} as Record<string, unknown>
    const keys = [...new Set([...Object.keys(defaults), ...Object.keys(fromFile)])].sort()
    const options = Object.fromEntries(
      keys.map((key) => [key, key in fromFile ? {value: fromFile[key], source: loaded.filepath!, flag: flagName(key)} : {value: defaults[key], source: 'default', flag: flagName(key)}]),
    )
    const environment = Object.fromEntries(
      Object.keys(process.env)
        .filter((name) => name.startsWith('ENGINE_'))
        .sort()
        .map((name) => [name, SECRET.test(name) ? '(set)' : process.env[name]]),
    )
    if (flags.json) {
      this.log(JSON.stringify({file: loaded.filepath ?? null, options, environment}))
      return
    }
    this.log(loaded.filepath ? `config file: ${relative(process.cwd(), loaded.filepath) || loaded.filepath}` : 'config file: none found (defaults apply)')
    const width = Math.max(...keys.map((key) => key.length))
    for (const [key, {value, source}] of Object.entries(options)) {
      this.log(`  ${key.padEnd(width)}  ${JSON.stringify(value)}  (${source === 'default' ? 'default' : relative(process.cwd(), source) || source})`)
    }
    const set = Object.entries(environment)
    this.log(set.length > 0 ? 'environment:' : 'environment: no ENGINE_* variable set')
    for (const [name, value] of set) this.log(`  ${name}=${value}`)
  }
}
