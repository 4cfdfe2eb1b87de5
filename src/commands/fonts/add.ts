import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {addFonts} from '../../lib/fonts/add-fonts.js'
import {weightsText} from '../../lib/fonts/font-catalog.js'

export default class FontsAdd extends BaseCommand {
  static override summary = 'Install font families (Fontsource packages, through npm) into the font cache'
  static override description = 'Needs the npm registry once; renders then use the families offline, everywhere. Honours npm configuration (registry, proxy).'
  static override examples = ['<%= config.bin %> fonts add "Playfair Display"', '<%= config.bin %> fonts add Lobster "Fira Sans" --json', '<%= config.bin %> fonts add Inter --variable']
  static override strict = false
  static override args = {family: Args.string({description: 'family name as Google Fonts writes it', required: true})}
  static override flags = {
    json: Flags.boolean({description: 'print the installed families as JSON'}),
    variable: Flags.boolean({description: 'install the variable font (@fontsource-variable/<slug>): every weight of its range, such as 450, drawn as designed'}),
  }

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(FontsAdd)
    const installed = await addFonts(argv as string[], {variable: flags.variable})
    const families = installed.map((entry) => ({
      family: entry.family,
      packageName: entry.packageName,
      version: entry.version,
      weights: entry.weights,
      ...(entry.variableWeight && {variableWeight: entry.variableWeight}),
      styles: entry.styles,
    }))
    if (flags.json) {
      this.log(JSON.stringify({families}))
      return
    }
    for (const family of families) this.log(`added ${family.family} (${family.packageName}@${family.version}): weights ${weightsText(family)}${family.styles.includes('italic') ? ' + italic' : ''}`)
  }
}
