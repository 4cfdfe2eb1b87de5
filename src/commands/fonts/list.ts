import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {listFonts} from '../../lib/fonts/list-fonts.js'
import {weightsText} from '../../lib/fonts/font-catalog.js'

export default class FontsList extends BaseCommand {
  static override summary = 'List the font families renders use without the network: bundled and cached, with their weights, and the stand-ins of system and proprietary families'
  static override examples = ['<%= config.bin %> fonts list', '<%= config.bin %> fonts list --json']
  static override flags = {json: Flags.boolean({description: 'print {families, generics, substitutes, cache} as JSON'})}

  async run(): Promise<void> {
    const {flags} = await this.parse(FontsList)
    const list = await listFonts()
    if (flags.json) {
      this.log(JSON.stringify(list))
      return
    }
    for (const family of list.families) {
      const italic = family.styles.includes('italic') ? ' (+ italic)' : ''
      this.log(`${family.family.padEnd(20)} ${family.source.padEnd(7)} ${weightsText(family)}${italic}; ${family.subsets.join(' ')}  ${family.packageName}@${family.version}`)
    }
    this.log('')
    for (const [generic, face] of Object.entries(list.generics)) this.log(`${generic.padEnd(14)} -> ${face}`)
    this.log('')
    for (const row of list.substitutes) this.log(`${row.names.join(', ')} -> ${row.family} (${row.why})`)
    this.log(`\nfont cache: ${list.cache.directory} (${list.cache.files} files, ${(list.cache.bytes / 1e6).toFixed(1)} MB)`)
  }
}
