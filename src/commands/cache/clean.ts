import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {EngineError} from '../../lib/errors/engine-error.js'
import {cleanEntries, renderCacheSettings} from '../../lib/render-cache/index.js'
import {cleanDownloads} from '../../lib/sandbox/download-cache.js'

const UNITS: Record<string, number> = {m: 60_000, h: 3_600_000, d: 86_400_000}
const WHICH = ['all', 'downloads', 'renders'] as const

export default class CacheClean extends BaseCommand {
  static override summary = 'Remove downloaded files and stored renders from the cache (all of them, or those unused for a while)'
  static override description =
    'Renders download them again, and render again what they would have reused, when they need them. Fonts and extracted video frames are not touched.'
  static override examples = ['<%= config.bin %> cache clean', '<%= config.bin %> cache clean --unused-for 7d', '<%= config.bin %> cache clean --only renders']
  static override flags = {
    'unused-for': Flags.string({description: 'only entries no render used for this long: a number with m, h or d (30m, 12h, 7d)'}),
    only: Flags.string({description: 'clean one cache: downloads or renders (default both)', options: [...WHICH]}),
    json: Flags.boolean({description: 'print {removed, bytes, downloads:{removed, bytes}, renders:{removed, bytes}} as JSON'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CacheClean)
    const unusedFor = flags['unused-for'] === undefined ? 0 : parseAge(flags['unused-for'])
    const which = flags.only ?? 'all'
    const downloads = which === 'renders' ? [] : await cleanDownloads(process.env, unusedFor)
    const settings = renderCacheSettings()
    const renders = which === 'downloads' || !settings ? [] : await cleanEntries(settings.directory, unusedFor)
    const tally = (removed: {bytes: number}[]) => ({removed: removed.length, bytes: removed.reduce((sum, entry) => sum + entry.bytes, 0)})
    const [fromDownloads, fromRenders] = [tally(downloads), tally(renders)]
    if (flags.json) {
      this.log(JSON.stringify({removed: fromDownloads.removed + fromRenders.removed, bytes: fromDownloads.bytes + fromRenders.bytes, downloads: fromDownloads, renders: fromRenders}))
      return
    }
    this.log(`removed ${fromDownloads.removed} file(s), ${megabytes(fromDownloads.bytes)}, and ${fromRenders.removed} render(s), ${megabytes(fromRenders.bytes)}`)
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`
}

function parseAge(text: string): number {
  const match = /^(\d+(?:\.\d+)?)([mhd])$/.exec(text.trim())
  if (!match) throw new EngineError('INVALID_FLAG', `--unused-for: "${text}" is not an age; write a number with m, h or d, such as 30m, 12h or 7d`, {value: text})
  return Number(match[1]) * UNITS[match[2]]
}
