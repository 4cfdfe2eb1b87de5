import puppeteer, {type Browser, type Page} from 'puppeteer-core'

const BROWSER = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

/** A real browser showing the preview's player page at `url`, once the composition is ready; `watch` sees the page before it loads. */
export async function openPlayer(url: string, watch?: (page: Page) => void): Promise<{browser: Browser; page: Page}> {
  const browser = await puppeteer.launch({executablePath: BROWSER, headless: 'shell', args: ['--no-sandbox', '--hide-scrollbars', '--force-device-scale-factor=1']})
  const page = await browser.newPage()
  await page.setViewport({width: 1280, height: 800})
  watch?.(page)
  await page.goto(url)
  await page.waitForSelector('body[data-state="ready"]')
  return {browser, page}
}
