// Writes fonts/<slug>/ for each package of each set in fonts/vendored.json: the package's
// package.json, LICENSE, metadata.json and unicode.json cut down to the set's subsets, and those
// subsets' woff2 files for every weight and style, in the Fontsource layout the font catalog
// reads. A package comes from node_modules when the devDependency there is the listed version,
// else from the npm registry. Run it when the list changes and commit the result.
//   node scripts/vendor-fonts.mjs
import {execFileSync} from 'node:child_process'
import {copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

const ROOT = join(import.meta.dirname, '..')
const FONTS = join(ROOT, 'fonts')
const {sets} = JSON.parse(readFileSync(join(FONTS, 'vendored.json'), 'utf8'))
const work = mkdtempSync(join(tmpdir(), 'engine-vendor-fonts-'))

/** The unpacked package: the installed devDependency if it is this version, else the registry's tarball. */
function unpackedPackage(name, version) {
  const installed = join(ROOT, 'node_modules', name)
  if (existsSync(join(installed, 'package.json')) && JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')).version === version) return installed
  const tarball = execFileSync('npm', ['pack', '--silent', `${name}@${version}`], {cwd: work, encoding: 'utf8'}).trim().split('\n').pop()
  const unpacked = join(work, name.slice(name.indexOf('/') + 1))
  mkdirSync(unpacked)
  execFileSync('tar', ['xzf', join(work, tarball), '-C', unpacked, '--strip-components', '1'])
  return unpacked
}

let total = 0
try {
  for (const set of sets) {
    for (const [name, version] of Object.entries(set.packages)) {
      const slug = name.slice(name.indexOf('/') + 1)
      const unpacked = unpackedPackage(name, version)
      const metadata = JSON.parse(readFileSync(join(unpacked, 'metadata.json'), 'utf8'))
      const unicode = JSON.parse(readFileSync(join(unpacked, 'unicode.json'), 'utf8'))
      const subsets = set.subsets.filter((subset) => metadata.subsets.includes(subset))
      const target = join(FONTS, slug)
      rmSync(target, {recursive: true, force: true})
      mkdirSync(join(target, 'files'), {recursive: true})
      for (const file of ['package.json', 'LICENSE']) copyFileSync(join(unpacked, file), join(target, file))
      writeFileSync(join(target, 'metadata.json'), JSON.stringify({...metadata, subsets}, null, 2) + '\n')
      writeFileSync(join(target, 'unicode.json'), JSON.stringify(Object.fromEntries(subsets.map((subset) => [subset, unicode[subset]])), null, 2) + '\n')
      let bytes = 0
      for (const subset of subsets) {
        for (const weight of metadata.weights) {
          for (const style of metadata.styles) {
            const file = `${slug}-${subset}-${weight}-${style}.woff2`
            copyFileSync(join(unpacked, 'files', file), join(target, 'files', file))
            bytes += statSync(join(target, 'files', file)).size
          }
        }
      }
      total += bytes
      console.log(`${name}@${version}: ${readdirSync(join(target, 'files')).length} files, ${(bytes / 1024).toFixed(0)} KiB`)
    }
  }
  console.log(`total: ${(total / 1024).toFixed(0)} KiB of woff2`)
} finally {
  rmSync(work, {recursive: true, force: true})
}
