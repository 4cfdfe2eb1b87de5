import {existsSync, readFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'

const LOCKFILES = ['package-lock.json', 'yarn.lock', 'pnpm-lock.yaml', 'npm-shrinkwrap.json']

/**
 * `engine plugins link <folder>` of a folder without a lockfile: oclif then installs nothing and
 * warns "No lockfile found … you may need to install the dependencies", which says neither whether
 * anything is missing nor what to run. Such a link is made as `--no-install` (what oclif does
 * anyway), and engine says instead which dependencies the folder cannot find, with the command
 * that installs them; when it finds them all there is nothing to say.
 */
export function pluginLinkArgs(argv: readonly string[], cwd = process.cwd()): {argv: string[]; notice?: string} {
  const [topic, command, ...rest] = argv
  if (topic !== 'plugins' || command !== 'link' || rest.includes('--no-install') || rest.includes('--install')) return {argv: [...argv]}
  const path = rest.find((arg) => !arg.startsWith('-'))
  if (!path) return {argv: [...argv]}
  const folder = resolve(cwd, path)
  if (!existsSync(join(folder, 'package.json')) || LOCKFILES.some((file) => existsSync(join(folder, file)))) return {argv: [...argv]}
  const missing = missingDependencies(folder)
  const notice =
    missing.length === 0
      ? undefined
      : `${folder} has no lockfile, so nothing was installed for it, and it cannot find ${missing.join(', ')}: run \`npm install\` in ${folder} (a plugin that imports engine finds it without installing it)`
  return {argv: [...argv, '--no-install'], notice}
}

/** The package's dependencies that Node would not find from its folder (node_modules there or above). */
function missingDependencies(folder: string): string[] {
  let dependencies: Record<string, string>
  try {
    dependencies = (JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {dependencies?: Record<string, string>}).dependencies ?? {}
  } catch {
    return []
  }
  return Object.keys(dependencies).filter((name) => !findsPackage(folder, name))
}

function findsPackage(from: string, name: string): boolean {
  for (let directory = from; ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'node_modules', name, 'package.json'))) return true
    if (dirname(directory) === directory) return false
  }
}
