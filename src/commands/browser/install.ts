import {BaseCommand} from '../../cli/base-command.js'
import {installPinnedBrowser, PINNED_BROWSER} from '../../lib/browser/pinned-browser.js'

export default class BrowserInstall extends BaseCommand {
  static override summary = `Download the pinned chrome-headless-shell (${PINNED_BROWSER.buildId}) into the engine cache`
  static override description = 'Needs the internet. Without it, install the system package instead: apt-get install -y chromium-headless-shell'
  static override examples = ['<%= config.bin %> browser install']

  async run(): Promise<void> {
    await this.parse(BrowserInstall)
    let lastPercent = -1
    const installed = await installPinnedBrowser({
      onProgress: (done, total) => {
        const percent = total > 0 ? Math.floor((done / total) * 100) : 0
        if (percent >= lastPercent + 10) {
          lastPercent = percent
          process.stderr.write(`downloading chrome-headless-shell ${PINNED_BROWSER.buildId}: ${percent}%\n`)
        }
      },
    })
    this.log(`chrome-headless-shell ${installed.buildId}: ${installed.executablePath}`)
  }
}
