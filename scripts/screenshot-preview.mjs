// Takes docs/preview.png: `engine preview` of docs/preview-example/index.html in a headless
// browser, paused at 2 s. Run after `npm run build`: node scripts/screenshot-preview.mjs
import {join} from 'node:path'
import puppeteer from 'puppeteer-core'

const root = join(import.meta.dirname, '..')
process.chdir(root)
const {startPreviewServer} = await import(join(root, 'dist/src/lib/preview/index.js'))
const server = await startPreviewServer({composition: 'docs/preview-example/index.html', port: 0, fps: {num: 30, den: 1}})
const browser = await puppeteer.launch({
  executablePath: process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell',
  headless: 'shell',
  args: ['--no-sandbox', '--hide-scrollbars', '--font-render-hinting=none'],
})
try {
  const page = await browser.newPage()
  await page.setViewport({width: 1440, height: 860, deviceScaleFactor: 1})
  await page.goto(server.url)
  await page.waitForSelector('body[data-state="ready"]')
  await page.$eval('#scrubber', (input) => {
    input.value = '60'
    input.dispatchEvent(new Event('input', {bubbles: true}))
  })
  await page.waitForSelector('body[data-frame="60"]')
  const output = join(root, 'docs/preview.png')
  await page.screenshot({path: output})
  console.log(`wrote ${output}`)
} finally {
  await browser.close()
  await server.close()
}
