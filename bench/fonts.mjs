// Compile-time cost of the fonts stage: a composition naming three families by font-family alone
// (resolved to bundled Fontsource files, hashed and linked into an empty font cache each time)
// against the same composition naming none, median of 5 compiles each, in this run.
import {mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const page = (style) =>
  `<!doctype html><html><head><style>${style}</style></head><body><div id="root" data-composition-id="b" data-width="1920" data-height="1080" data-duration="1">` +
  '<h1>Title</h1><p>Body text</p><code>code</code></div></body></html>'

function median(values) {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

export async function benchFonts(compileComposition) {
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-fonts-'))
  try {
    const three = join(work, 'three.html')
    const none = join(work, 'none.html')
    writeFileSync(three, page('h1 { font-family: Inter; font-weight: 700 } p { font-family: "Playfair Display" } code { font-family: "JetBrains Mono" }'))
    writeFileSync(none, page('h1 { font-weight: 700 }'))
    const time = async (file, round) => {
      const env = {...process.env, ENGINE_CACHE_DIR: join(work, `cache-${round}-${file.length}`)}
      const started = performance.now()
      const compiled = await compileComposition(file, {env})
      return {ms: performance.now() - started, faces: compiled.fonts.runtime.faces.length}
    }
    const rounds = [0, 1, 2, 3, 4]
    const withFonts = []
    const without = []
    let faces = 0
    for (const round of rounds) {
      const a = await time(three, round)
      faces = a.faces
      withFonts.push(a.ms)
      without.push((await time(none, round)).ms)
    }
    const [a, b] = [median(withFonts), median(without)]
    console.log(`fonts: compile naming Inter, Playfair Display, JetBrains Mono ${a.toFixed(0)} ms vs none ${b.toFixed(0)} ms (median of 5, empty font cache each): +${(a - b).toFixed(0)} ms for ${faces} served faces`)
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}

/**
 * What a Google Fonts `<link>` costs a render with no network: the fixture page asking for Inter
 * and JetBrains Mono through the link, against the same page with `@font-face` rules on the same
 * files, median of 3 renders each (alternating), in this run.
 */
export async function benchFontLink(renderComposition, resolveRenderOptions) {
  const fixtures = new URL('../test/fixtures/fonts/', import.meta.url)
  const work = mkdtempSync(join(tmpdir(), 'engine-bench-font-link-'))
  try {
    const pages = {link: new URL('google.html', fixtures).pathname, fontFace: new URL('explicit.html', fixtures).pathname}
    const times = {link: [], fontFace: []}
    for (const round of [0, 1, 2]) {
      for (const [name, composition] of Object.entries(pages)) {
        const options = resolveRenderOptions({network: false, output: join(work, `${name}-${round}.mp4`)})
        const started = performance.now()
        await renderComposition({composition, options})
        times[name].push(performance.now() - started)
      }
    }
    const [link, fontFace] = [median(times.link), median(times.fontFace)]
    console.log(`fonts: render with a Google Fonts <link>, no network, ${link.toFixed(0)} ms vs @font-face rules ${fontFace.toFixed(0)} ms (median of 3): ${link - fontFace >= 0 ? '+' : ''}${(link - fontFace).toFixed(0)} ms`)
  } finally {
    rmSync(work, {recursive: true, force: true})
  }
}
