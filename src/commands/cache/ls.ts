import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {terminalText} from '../../cli/terminal-text.js'
import {downloadCacheBudget, downloadsDirectory, listDownloads, DOWNLOAD_CACHE_MAX_ENV} from '../../lib/sandbox/download-cache.js'
import {listEntries, RENDER_CACHE_ENV, RENDER_CACHE_MAX_ENV, renderCacheSettings} from '../../lib/render-cache/index.js'

export default class CacheLs extends BaseCommand {
  static override summary = 'List the download cache (each file compositions downloaded) and the render cache (each stored output), with sizes and last use'
  static override description =
    `Least recently used first: the order in which each cache is trimmed when it passes its budget (${DOWNLOAD_CACHE_MAX_ENV}, default 4G; ${RENDER_CACHE_MAX_ENV}, default 5G). ` +
    `Private-network downloads (--allow-private-network) are marked. ${RENDER_CACHE_ENV}=off turns the render cache off.`
  static override examples = ['<%= config.bin %> cache ls', '<%= config.bin %> cache ls --json']
  static override flags = {
    json: Flags.boolean({
      description:
        'print {directory, budgetBytes, totalBytes, entries:[{url, bytes, lastUsed, private}], renders:{directory, budgetBytes, totalBytes, entries:[{key, kind, composition, bytes, lastUsed, createdAt, files}]}} as JSON',
    }),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(CacheLs)
    const entries = await listDownloads()
    const totalBytes = entries.reduce((sum, entry) => sum + entry.bytes, 0)
    const budgetBytes = downloadCacheBudget()
    const renderSettings = renderCacheSettings()
    const rendered = renderSettings ? await listEntries(renderSettings.directory) : []
    const renderBytes = rendered.reduce((sum, entry) => sum + entry.bytes, 0)
    if (flags.json) {
      const listed = entries.map(({url, bytes, lastUsed, private: fromPrivate}) => ({url, bytes, lastUsed: lastUsed.toISOString(), private: fromPrivate}))
      const renders = renderSettings && {
        directory: renderSettings.directory,
        budgetBytes: renderSettings.budgetBytes,
        totalBytes: renderBytes,
        entries: rendered.map(({key, bytes, lastUsed, entry}) => ({key, kind: entry.kind, composition: entry.composition, bytes, lastUsed: lastUsed.toISOString(), createdAt: entry.createdAt, files: entry.files.map((file) => file.role)})),
      }
      this.log(JSON.stringify({directory: downloadsDirectory(), budgetBytes, totalBytes, entries: listed, renders: renders ?? null}))
      return
    }
    for (const entry of entries) this.log(`${megabytes(entry.bytes).padStart(10)}  ${entry.lastUsed.toISOString()}  ${terminalText(String(entry.url), {singleLine: true})}${entry.private ? '  (private network)' : ''}`)
    this.log(`${entries.length} file(s), ${megabytes(totalBytes)} of ${megabytes(budgetBytes)} in ${downloadsDirectory()}`)
    if (!renderSettings) {
      this.log(`render cache: off (${RENDER_CACHE_ENV}=off)`)
      return
    }
    for (const {key, bytes, lastUsed, entry} of rendered) {
      this.log(`${megabytes(bytes).padStart(10)}  ${lastUsed.toISOString()}  ${key.slice(0, 12)}  ${entry.kind} of ${entry.composition}${entry.files.length > 1 ? ' (with poster)' : ''}`)
    }
    this.log(`${rendered.length} render(s), ${megabytes(renderBytes)} of ${megabytes(renderSettings.budgetBytes)} in ${renderSettings.directory}`)
  }
}

function megabytes(bytes: number): string {
  return `${(bytes / 1024 ** 2).toFixed(1)} MB`
}
