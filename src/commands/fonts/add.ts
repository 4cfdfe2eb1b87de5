import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {addFonts} from '../../lib/fonts/add-fonts.js'

export default class FontsAdd extends BaseCommand {
  static override summary = 'Install font families (Fontsource packages, through npm) into the font cache'
  static override description = 'Needs the npm registry once; renders then use the families offline, everywhere. Honours npm configuration (registry, proxy).'
  static override examples = ['<%= config.bin %> fonts add "Playfair Display"', '<%= config.bin %> fonts add Lobster "Fira Sans" --json']
  static override strict = false
  static override args = {family: Args.string({description: 'family name as Google Fonts writes it', required: true})}
  static override flags = {json: Flags.boolean({description: 'print the installed families as JSON'})}

  async run(): Promise<void> {
    const {argv, flags} = await this.parse(FontsAdd)
    const installed = await addFonts(argv as string[])
    const families = installed.map((entry) => ({family: entry.family, packageName: entry.packageName, version: entry.version, weights: entry.weights, styles: entry.styles}))
    if (flags.json) {
      this.log(JSON.stringify({families}))
      return
    }
    for (const family of families) this.log(`added ${family.family} (${family.packageName}@${family.version}): weights ${family.weights.join(' ')}${family.styles.includes('italic') ? ' + italic' : ''}`)
  }
}
