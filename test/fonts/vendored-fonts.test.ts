import {readFile, readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {fontPackageFiles, VENDORED_FONTS_DIR} from '../../src/lib/fonts/bundled-fonts.js'
import {REPO_ROOT} from '../support/run-cli.js'

interface VendoredList {
  sets: {subsets: string[]; packages: Record<string, string>}[]
}

/**
 * fonts/ is what scripts/vendor-fonts.mjs writes from fonts/vendored.json. Its first set is the
 * packages engine once depended on whole; they are devDependencies now, and what it carries of each
 * must be exactly what a render could use of the installed package, byte for byte.
 */
describe('the vendored fonts (fonts/)', () => {
  it('holds one package per listed Fontsource package, each with its licence', async () => {
    const {sets} = JSON.parse(await readFile(join(VENDORED_FONTS_DIR, 'vendored.json'), 'utf8')) as VendoredList
    const listed = sets.flatMap((set) => Object.keys(set.packages).map((name) => name.split('/')[1])).sort()
    const onDisk = (await readdir(VENDORED_FONTS_DIR, {withFileTypes: true})).filter((entry) => entry.isDirectory()).map((entry) => entry.name).sort()
    expect(onDisk).toEqual(listed)
    for (const slug of onDisk) expect((await readFile(join(VENDORED_FONTS_DIR, slug, 'LICENSE'), 'utf8')).length, slug).toBeGreaterThan(100)
  })

  it('carries, of each package installed as a devDependency, the woff2 files renders use and nothing else', async () => {
    const {sets} = JSON.parse(await readFile(join(VENDORED_FONTS_DIR, 'vendored.json'), 'utf8')) as VendoredList
    const devDependencies = (JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {devDependencies: Record<string, string>}).devDependencies
    const [everySubset] = sets
    expect(Object.keys(everySubset.packages).every((name) => name in devDependencies)).toBe(true)
    for (const [name, version] of Object.entries(everySubset.packages)) {
      const installed = join(REPO_ROOT, 'node_modules', name)
      expect((JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as {version: string}).version, `${name}: run node scripts/vendor-fonts.mjs`).toBe(version)
      const slug = name.split('/')[1]
      const fromPackage = (await fontPackageFiles(installed)).filter((path) => path.endsWith('.woff2'))
      const vendored = (await fontPackageFiles(join(VENDORED_FONTS_DIR, slug))).filter((path) => path.endsWith('.woff2'))
      const names = (paths: string[]) => paths.map((path) => path.slice(path.lastIndexOf('/') + 1))
      expect(names(vendored), name).toEqual(names(fromPackage))
      expect((await readdir(join(VENDORED_FONTS_DIR, slug, 'files'))).length, name).toBe(vendored.length)
      for (const [index, path] of vendored.entries()) {
        expect((await readFile(path)).equals(await readFile(fromPackage[index])), path).toBe(true)
      }
    }
  })
})
