import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {stopOnSignal} from '../cli/stop-on-signal.js'
import {parseFps} from '../lib/plan/fps.js'
import {openInBrowser, startPreviewServer} from '../lib/preview/index.js'
import {loadProjectConfig, trustProjectConfigFlag} from '../cli/project-config.js'

export default class Preview extends BaseCommand {
  static override summary = 'Open a composition in a browser with a player and a variables editor'
  static override description = [
    'Serves a player page on 127.0.0.1: the composition at its real size scaled to fit, driven by the same',
    'runtime as renders; play, scrub and step through frames; edit every declared variable with a native',
    'control and copy the values as --variables JSON; lint findings; reloads when a file next to the',
    'composition changes. Files are served from the project (the nearest folder with a package.json or .git).',
  ].join(' ')
  static override examples = ['<%= config.bin %> preview index.html', '<%= config.bin %> preview index.html --port 0 --no-open --fps 60']
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {
    port: Flags.integer({description: 'port of the preview server (0 picks a free one)', default: 3000, min: 0, max: 65535}),
    open: Flags.boolean({description: 'open the default browser (--no-open only prints the URL)', default: true, allowNo: true}),
    fps: Flags.string({description: "frame rate of the player (default: fps of the config file, else the composition root's data-fps, else 30)"}),
    ...trustProjectConfigFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Preview)
    const config = await loadProjectConfig(flags['trust-project-config'], this.config.configDir, flags.config)
    const explicit = flags.fps ?? config.options.fps
    const fps = explicit === undefined ? undefined : parseFps(explicit, flags.fps === undefined && config.filepath ? `${config.filepath}: key "fps"` : '--fps')
    const server = await startPreviewServer({
      composition: args.composition,
      port: flags.port,
      fps,
      onChange: (files) => this.log(`changed: ${files.join(', ')}; the preview reloads`),
    })
    const stopped = stopOnSignal(() => server.close())
    this.log(`engine preview of ${args.composition}: ${server.url}`)
    this.log(`serving files under ${server.root}; press Ctrl+C to stop`)
    if (flags.open && !(await openInBrowser(server.url))) this.log(`could not open a browser here; open ${server.url} yourself`)
    const signal = await stopped
    // Ctrl-C exits 130 as an interrupted command does; SIGTERM is an ordered stop: 0.
    if (signal === 'SIGINT') process.exitCode = 130
  }
}
