import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {getFormat} from '../lib/encode/format-registry.js'
import {formatLintReport, lintComposition, lintReport} from '../lib/lint/index.js'

export default class Lint extends BaseCommand {
  static override summary = 'Check a composition and its sub-compositions before rendering'
  static override description =
    'Checks variable declarations, composition attributes, clip timing, sub-composition hosts and data-color-grading. ' +
    'Exits 1 when any error is found; warnings alone exit 0.'
  static override examples = ['<%= config.bin %> lint index.html', '<%= config.bin %> lint index.html --format webm --json']
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {
    json: Flags.boolean({description: 'print {file, findings, errors, warnings} as JSON'}),
    format: Flags.string({description: 'intended output format; alpha formats (mov, webm, png-sequence) also check html/body backgrounds, gif a data-fps above its 30 frames/s'}),
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Lint)
    const format = flags.format === undefined ? undefined : getFormat(flags.format)
    const report = lintReport(args.composition, await lintComposition(args.composition, {alpha: format?.alpha ?? false, maxFps: format?.maxFps, format: format?.name}))
    process.stdout.write(flags.json ? JSON.stringify(report) + '\n' : formatLintReport(report))
    if (report.errors > 0) process.exitCode = 1
  }
}
