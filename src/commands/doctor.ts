import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {pluginProblems} from '../cli/plugin-hooks/plugin-problems.js'
import type {DoctorCheck} from '../lib/doctor/doctor-check.js'
import {runDoctor} from '../lib/doctor/run-doctor.js'
import {loadProjectConfig, trustProjectConfigFlag} from '../cli/project-config.js'
import {installMissingTools} from '../cli/install-missing-tools.js'

const MARK: Record<DoctorCheck['status'], string> = {ok: 'ok     ', warning: 'warning', missing: 'missing'}

export default class Doctor extends BaseCommand {
  static override summary = 'Check the JavaScript runtime, ffmpeg, ffprobe, the browser, the container runtime and font sources'
  static override examples = ['<%= config.bin %> doctor', '<%= config.bin %> doctor --json', '<%= config.bin %> doctor --fix', '<%= config.bin %> doctor --safe']
  static override flags = {
    json: Flags.boolean({description: 'machine-readable report'}),
    fix: Flags.boolean({
      description: 'download what is missing first: the pinned headless browser and a static ffmpeg/ffprobe (on Linux the pinned 7.0.2 build, else or when it cannot be had the npm build for this platform; mirrors: ENGINE_BROWSER_MIRROR, ENGINE_FFMPEG_MIRROR, ENGINE_NPM_REGISTRY)',
    }),
    'browser-path': Flags.string({description: 'check this browser executable instead of the one found automatically'}),
    ...trustProjectConfigFlag,
    safe: Flags.boolean({description: "run no plugin's code (a plugin that breaks every command can still be found and removed)"}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Doctor)
    const config = await loadProjectConfig(flags['trust-project-config'], this.config.configDir, flags.config)
    const browserPath = flags['browser-path'] ?? config.options.browserPath
    if (flags.fix) await installMissingTools({requested: true, browser: true, ffmpeg: true, browserPath})
    const installed = this.config.getPluginsList().filter((plugin) => plugin.type === 'user' || plugin.type === 'link')
    const report = await runDoctor({
      browserPath,
      plugins: {installed, problems: pluginProblems(), hooksRan: !flags.safe},
    })
    if (flags.json) {
      this.log(JSON.stringify(report))
    } else {
      for (const check of report.checks) {
        this.log(`${MARK[check.status]}  ${check.name}${check.required ? '' : ' (optional)'}: ${check.summary}`)
        if (check.fix) this.log(`         fix: ${check.fix}`)
      }
      this.log(report.ok ? '\nready to render' : '\nsomething required is missing: see the fixes above')
    }
    if (!report.ok) process.exitCode = 1
  }
}
