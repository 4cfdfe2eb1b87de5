// `node bench/download-cache.mjs` (after `npm run build`): what holding the download cache to its
// budget costs per entry, at 1,000 and 100,000 cached files (100x apart), measured as CPU and wall
// time of one eviction scan over a cache already within budget (the common case: every entry is
// looked at, none removed). The engine runs such a scan after a download only once a tenth of the
// budget was added or a minute passed, so a render's cost per downloaded file stays flat.
import {mkdirSync, mkdtempSync, rmSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const {evictDownloads, downloadsDirectory} = await import(new URL('../dist/src/lib/sandbox/download-cache.js', import.meta.url).href)

for (const count of [1_000, 100_000]) {
  const cache = mkdtempSync(join(tmpdir(), 'engine-bench-cache-'))
  const env = {ENGINE_CACHE_DIR: cache, ENGINE_DOWNLOAD_CACHE_MAX: '4G'}
  const directory = downloadsDirectory(env)
  mkdirSync(directory, {recursive: true})
  const body = Buffer.alloc(1024)
  for (let index = 0; index < count; index++) {
    const name = index.toString(16).padStart(32, '0') + '.png'
    writeFileSync(join(directory, name), body)
    writeFileSync(join(directory, `${name}.json`), JSON.stringify({url: `https://cdn.example/${index}.png`, contentType: 'image/png', private: false}))
  }
  const wall = performance.now()
  const before = process.cpuUsage()
  const removed = await evictDownloads(env)
  const used = process.cpuUsage(before)
  const cpuMs = (used.user + used.system) / 1000
  const wallMs = performance.now() - wall
  console.log(`${String(count).padStart(7)} entries: scan ${wallMs.toFixed(0).padStart(6)} ms wall, ${cpuMs.toFixed(0).padStart(6)} ms CPU, ${((cpuMs * 1000) / count).toFixed(1)} µs CPU per entry, removed ${removed.length}`)
  rmSync(cache, {recursive: true, force: true})
}
