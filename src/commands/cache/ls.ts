import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {terminalText} from '../../cli/terminal-text.js'
import {downloadCacheBudget, downloadsDirectory, listDownloads, DOWNLOAD_CACHE_MAX_ENV} from '../../lib/sandbox/download-cache.js'

export default class CacheLs extends BaseCommand {
  static override summary = 'List the download cache: each file compositions downloaded, its size and when a render last used it'
  static override description =
    `Least recently used first: the order in which the cache is trimmed when it passes its budget (${DOWNLOAD_CACHE_MAX_ENV}, default 4G). ` +
    'Private-network downloads (--allow-private-network) are marked.'
  static override examples = ['<%= config.bin %> cache ls', '<%= config.bin %> cache ls --json']
  static override flags = {json: Flags.boolean({description: 'print {directory, budgetBytes, totalBytes, entries:[{url, bytes, lastUsed, private}]} as JSON'})}

  async run(): Promise<void> {
    const {flags} = await this.parse(CacheLs)
    const entries = await listDownloads()
    const totalBytes = entries.reduce((sum, entry) => sum + entry.bytes, 0)
    const budgetBytes = downloadCacheBudget()
    if (flags.json) {
      const listed = entries.map(({url, bytes, lastUsed, private: fromPrivate}) => ({url, bytes, lastUsed: lastUsed.toISOString(), private: fromPrivate}))
      this.log(JSON.stringify({directory: downloadsDirectory(), budgetBytes, totalBytes, entries: listed}, null, 2))
      return
    }
    for (const entry of entries) this.log(`${megabytes(entry.bytes).padStart(10)}  ${entry.lastUsed.toISOString()}  ${terminalText(String(entry.url), {singleLine: true})}${entry.private ? '  (private network)' : ''}`)
    this.log(`${entries.length} file(s), ${megabytes(totalBytes)} of ${megabytes(budgetBytes)} in ${downloadsDirectory()}`)
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`
}
