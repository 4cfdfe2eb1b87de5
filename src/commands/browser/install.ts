import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {downloadProgress} from '../../cli/download-progress.js'
import {installPinnedBrowser, PINNED_BROWSER} from '../../lib/browser/pinned-browser.js'
import {downloadMirrors} from '../../lib/setup/download-mirrors.js'

export default class BrowserInstall extends BaseCommand {
  static override summary = `Download the pinned chrome-headless-shell (${PINNED_BROWSER.buildId}) into the engine cache`
  static override description =
    'Needs the internet, or a mirror of the Chrome for Testing downloads in ENGINE_BROWSER_MIRROR. Without either, install the system package instead: apt-get install -y chromium-headless-shell. A first render offers this download by itself.'
  static override examples = ['<%= config.bin %> browser install', '<%= config.bin %> browser install --json']
  static override flags = {json: Flags.boolean({description: 'print {browser, buildId, executablePath} as JSON (progress stays on stderr)'})}

  async run(): Promise<void> {
    const {flags} = await this.parse(BrowserInstall)
    const label = `chrome-headless-shell ${PINNED_BROWSER.buildId}`
    const progress = downloadProgress()
    const installed = await installPinnedBrowser({baseUrl: downloadMirrors().browser, onProgress: (done, total) => progress.update(label, done, total)}).finally(() => progress.end())
    if (flags.json) this.log(JSON.stringify({browser: 'chrome-headless-shell', buildId: PINNED_BROWSER.buildId, executablePath: installed.executablePath}))
    else this.log(`${label}: ${installed.executablePath}`)
  }
}
