import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {listInstalledPlugins} from 'html-video-engine/internal/lib/config/installed-plugins.js'
import {buildLambdaBundle, DEFAULT_BUNDLE_NAME, mib} from '../../lib/lambda/bundle/build-lambda-bundle.js'

export default class LambdaBundle extends BaseCommand {
  static override summary = 'Build the render function bundle (zip) that `lambda deploy` uploads'
  static override description =
    'Compiles the handler into one file with esbuild and adds @sparticuz/chromium, static Linux ffmpeg and ffprobe, the render profile\'s fonts, the page runtime and the hooks of your installed and linked plugins. ' +
    'Fails above 248 MiB unzipped (Lambda\'s limit is 250 MiB), naming the largest parts. `lambda deploy` without --code runs this itself.'
  static override examples = ['<%= config.bin %> lambda bundle', '<%= config.bin %> lambda bundle --output dist/engine-lambda.zip --json']
  static override flags = {
    output: Flags.string({char: 'o', description: 'where to write the zip', default: DEFAULT_BUNDLE_NAME}),
    json: Flags.boolean({description: 'print the bundle report as JSON'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaBundle)
    const report = await buildLambdaBundle({output: flags.output, plugins: await listInstalledPlugins()})
    if (flags.json) {
      this.log(JSON.stringify(report, null, 2))
      return
    }
    this.log(`${report.path}: ${mib(report.zipBytes)} zipped, ${mib(report.unzippedBytes)} unzipped (limit 248 MiB)`)
    this.log(`sha256 ${report.sha256}`)
    this.log(`chromium ${report.chromium.package}@${report.chromium.version}`)
    this.log(`ffmpeg ${report.ffmpeg.version ?? '?'} (${report.ffmpeg.package}@${report.ffmpeg.packageVersion}; ${report.ffmpeg.encoders?.join(', ') ?? 'encoders not checked on this platform'})`)
    this.log(`ffprobe ${report.ffprobe.version ?? '?'} (${report.ffprobe.package}@${report.ffprobe.packageVersion})`)
    for (const plugin of report.plugins) this.log(`plugin ${plugin.name}@${plugin.version}: ${plugin.hooks.map((entry) => entry.hook).join(', ') || 'no engine hooks'}`)
    for (const part of report.parts) this.log(`  ${mib(part.bytes).padStart(10)}  ${part.part}`)
  }
}
