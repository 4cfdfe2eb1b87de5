import {existsSync, readFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {z} from 'zod'

const manifestSchema = z.object({name: z.string(), version: z.string(), dependencies: z.record(z.string(), z.string()).optional()}).passthrough()
export type PackageManifest = z.infer<typeof manifestSchema>

export interface InstalledPackage {
  name: string
  version: string
  directory: string
  manifest: PackageManifest
}

/**
 * Finds an installed package the way Node resolves it (node_modules of `from` and of every
 * directory above), by its directory rather than its entry: packages with an `exports` map do not
 * export their package.json.
 */
export function findInstalledPackage(name: string, from: string): InstalledPackage | undefined {
  for (let directory = from; ; directory = dirname(directory)) {
    const candidate = join(directory, 'node_modules', name)
    const manifestPath = join(candidate, 'package.json')
    if (existsSync(manifestPath)) {
      const manifest = manifestSchema.parse(JSON.parse(readFileSync(manifestPath, 'utf8')))
      return {name, version: manifest.version, directory: candidate, manifest}
    }
    if (dirname(directory) === directory) return undefined
  }
}

/**
 * The package and everything its `dependencies` pull in, each once. Optional dependencies are left
 * out (the ones that matter here are for other runtimes); a missing required one is an error.
 */
export function packageClosure(root: InstalledPackage): InstalledPackage[] {
  const seen = new Map<string, InstalledPackage>([[root.directory, root]])
  const queue = [root]
  while (queue.length > 0) {
    const current = queue.shift()!
    for (const dependency of Object.keys(current.manifest.dependencies ?? {})) {
      const found = findInstalledPackage(dependency, current.directory)
      if (!found) throw new Error(`${current.name}@${current.version} needs ${dependency}, which is not installed`)
      if (seen.has(found.directory)) continue
      seen.set(found.directory, found)
      queue.push(found)
    }
  }
  return [...seen.values()]
}
