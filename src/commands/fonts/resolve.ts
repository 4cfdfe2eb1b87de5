import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {describeWarning} from '../../cli/render-progress.js'
import {resolveCompositionFonts} from '../../lib/compose/resolve-composition-fonts.js'

export default class FontsResolve extends BaseCommand {
  static override summary = 'Show each font family a composition asks for, the face it renders with and where that comes from'
  static override description =
    'Sources, in order: the project\'s own @font-face rules (left alone), the font cache (engine fonts add), the bundled Fontsource set, ' +
    'then the bundled stand-in of a system or proprietary family (Arial -> Arimo, -apple-system -> Inter; `engine fonts list` shows the table); ' +
    'generic families map to fixed bundled faces. Google Fonts stylesheets are read and replaced by local files. Exits 1 when a family cannot be resolved.'
  static override examples = ['<%= config.bin %> fonts resolve index.html', '<%= config.bin %> fonts resolve index.html --json']
  static override args = {composition: Args.string({description: 'composition HTML file', required: true})}
  static override flags = {json: Flags.boolean({description: 'print {composition, families, removedUrls, findings} as JSON'})}

  async run(): Promise<void> {
    const {args, flags} = await this.parse(FontsResolve)
    const resolution = await resolveCompositionFonts(args.composition)
    if (flags.json) {
      this.log(JSON.stringify(resolution))
    } else {
      for (const family of resolution.families) {
        const source = family.packageName ? `${family.source} ${family.packageName}@${family.version}` : family.source
        const weights = family.weights.length > 0 ? ` ${family.weights.join(' ')}${family.styles.includes('italic') ? ' italic' : ''}` : ''
        const standIn = family.substitute ? `${family.substitute.family} instead, ` : ''
        const why = family.substitute ? `; ${family.substitute.why}` : ''
        this.log(`${family.family}${weights} -> ${standIn}${source} (${family.where}${why})`)
      }
      for (const url of resolution.removedUrls) this.log(`removed ${url} (served from local files)`)
      for (const finding of resolution.findings) this.log(describeWarning(finding))
    }
    if (resolution.findings.some((finding) => finding.code === 'font-fallback')) process.exitCode = 1
  }
}
