import {Args, Flags} from '@oclif/core'
import {relative} from 'node:path'
import {BaseCommand} from '../../cli/base-command.js'
import {scaffoldPlugin} from '../../lib/plugin-scaffold/scaffold-plugin.js'

export default class PluginsNew extends BaseCommand {
  static override summary = 'Start a format plugin: a package that adds one --format, ready to link, edit and publish'
  static override description =
    'The format is named after the package without an engine-plugin- prefix. The engine is an optional peer dependency of the plugin (see docs/guides/plugins.md).'
  static override examples = ['<%= config.bin %> plugins new engine-plugin-mkv2', '<%= config.bin %> plugins new @acme/engine-plugin-sheet --dir plugins/sheet']
  static override args = {name: Args.string({description: 'npm package name of the plugin', required: true})}
  static override flags = {
    dir: Flags.string({description: 'directory to create (default: ./<name without scope>); must not exist or be empty'}),
    json: Flags.boolean({description: 'print {directory, packageName, formatName, files} as JSON'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(PluginsNew)
    const plugin = await scaffoldPlugin(args.name, {directory: flags.dir, cwd: process.cwd(), engine: {name: this.config.name, version: this.config.version}})
    if (flags.json) {
      this.log(JSON.stringify(plugin))
      return
    }
    const where = relative(process.cwd(), plugin.directory) || '.'
    this.log(`created ${plugin.packageName} in ${where} (${plugin.files.join(', ')}), adding --format ${plugin.formatName}; next:`)
    this.log(`  ${this.config.bin} plugins link ${where}`)
    this.log(`  ${this.config.bin} render <composition.html> --format ${plugin.formatName}`)
  }
}
