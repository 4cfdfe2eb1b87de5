// Metrics of candidate stand-ins for system and proprietary families, measured in the capture
// browser: the advance width of a fixed Latin text, x-height and cap height (in em), each against a
// reference face installed on this machine whose metrics equal the proprietary family's (Liberation
// Sans/Serif/Mono are metric-compatible with Arial, Times New Roman and Courier New; DejaVu Sans Mono
// is the Bitstream Vera design Menlo was derived from). Prints a table; docs/guides/fonts.md quotes it.
//   node bench/font-metrics.mjs [candidate-dir ...]   (candidate dirs: Fontsource-layout packages)
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import puppeteer from 'puppeteer-core'

const SAMPLE = 'The quick brown fox jumps over the lazy dog 0123456789'
const ROOT = join(import.meta.dirname, '..')
const BROWSER = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

/** Fontsource package directories with a latin 400 normal face, by family. */
function candidates(directories) {
  const found = []
  for (const directory of directories) {
    const metadata = JSON.parse(readFileSync(join(directory, 'metadata.json'), 'utf8'))
    const file = readdirSync(join(directory, 'files')).find((name) => /-latin-400-normal\.woff2$/.test(name))
    if (file) found.push({family: metadata.family, data: readFileSync(join(directory, 'files', file)).toString('base64')})
  }
  return found
}

const groups = [
  {reference: 'Liberation Sans', stands: 'Arial, Helvetica', candidates: ['Arimo', 'Inter', 'Roboto', 'Noto Sans']},
  {reference: 'Liberation Serif', stands: 'Times New Roman', candidates: ['Tinos', 'Noto Serif', 'Gelasio']},
  {reference: 'Liberation Mono', stands: 'Courier New', candidates: ['Cousine', 'JetBrains Mono', 'Noto Sans Mono']},
  {reference: 'DejaVu Sans Mono', stands: 'Menlo (SF Mono, Monaco, Consolas: UI monospace)', candidates: ['JetBrains Mono', 'Roboto Mono', 'IBM Plex Mono', 'Source Code Pro', 'Noto Sans Mono', 'Fira Code', 'Cousine', 'Space Mono']},
]

const directories = process.argv.slice(2)
const packages = directories.length > 0 ? directories : [join(ROOT, 'node_modules', '@fontsource'), join(ROOT, 'fonts')].flatMap((folder) => readdirSync(folder).map((name) => join(folder, name)))
const faces = candidates(packages)

const browser = await puppeteer.launch({executablePath: BROWSER, args: ['--no-sandbox']})
try {
  const page = await browser.newPage()
  await page.setContent('<canvas></canvas>')
  const measure = (family) =>
    page.evaluate(
      async (family, face, sample) => {
        if (face) {
          const loaded = await new FontFace(family, Uint8Array.from(atob(face), (c) => c.charCodeAt(0))).load()
          document.fonts.add(loaded)
        }
        const context = document.querySelector('canvas').getContext('2d')
        context.font = `400 1000px "${family}"`
        const em = (text, key) => context.measureText(text)[key] / 1000
        return {advance: em(sample, 'width'), xHeight: em('x', 'actualBoundingBoxAscent'), capHeight: em('H', 'actualBoundingBoxAscent')}
      },
      family,
      faces.find((face) => face.family === family)?.data,
      SAMPLE,
    )
  for (const group of groups) {
    const reference = await measure(group.reference)
    console.log(`\n${group.stands}: reference ${group.reference} advance ${reference.advance.toFixed(2)} em, x-height ${reference.xHeight.toFixed(3)}, cap ${reference.capHeight.toFixed(3)}`)
    console.log('| candidate | advance vs reference | x-height | cap height |')
    console.log('|---|---|---|---|')
    for (const family of group.candidates) {
      if (!faces.some((face) => face.family === family)) continue
      const metrics = await measure(family)
      const ratio = ((metrics.advance / reference.advance - 1) * 100).toFixed(1)
      console.log(`| ${family} | ${ratio.startsWith('-') ? ratio : `+${ratio}`} % | ${metrics.xHeight.toFixed(3)} | ${metrics.capHeight.toFixed(3)} |`)
    }
  }
} finally {
  await browser.close()
}
