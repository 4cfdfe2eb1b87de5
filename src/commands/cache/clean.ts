import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {EngineError} from '../../lib/errors/engine-error.js'
import {cleanDownloads} from '../../lib/sandbox/download-cache.js'

const UNITS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000}

export default class CacheClean extends BaseCommand {
  static override summary = 'Remove downloaded files from the cache (all of them, or those unused for a while)'
  static override description = 'Renders download them again when they need them. Fonts and extracted video frames are not touched.'
  static override examples = ['<%= config.bin %> cache clean', '<%= config.bin %> cache clean --unused-for 7d']
  static override flags = {
    'unused-for': Flags.string({description: 'only files no render used for this long: a number with m, h or d (30m, 12h, 7d)'}),
    json: Flags.boolean({description: 'print {removed, bytes} as JSON'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CacheClean)
    const removed = await cleanDownloads(process.env, flags['unused-for'] === undefined ? 0 : parseAge(flags['unused-for']))
    const bytes = removed.reduce((sum, entry) => sum + entry.bytes, 0)
    if (flags.json) this.log(JSON.stringify({removed: removed.length, bytes}))
    else this.log(`removed ${removed.length} file(s), ${(bytes / 1024 ** 2).toFixed(1)} MB`)
  }
}

function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd])$/.exec(text.trim())
  if (!match) throw new EngineError('INVALID_FLAG', `--unused-for: "${text}" is not an age; write a number with m, h or d, such as 30m, 12h or 7d`, {value: text})
  return Number(match[1]) * UNITS[match[2]]
}
