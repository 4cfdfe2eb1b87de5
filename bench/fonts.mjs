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
