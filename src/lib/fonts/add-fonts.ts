import {spawn} from 'node:child_process'
import {mkdir, writeFile, access} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {EngineError} from '../errors/engine-error.js'
import {installedFontsDirectory} from './font-cache-dir.js'
import {familySlug, FONTSOURCE_SCOPE, FONTSOURCE_VARIABLE_SCOPE, readFontPackage, type CatalogFamily} from './font-catalog.js'

const INSTALL_TIMEOUT_MS = 5 * 60_000
const familyName = z
  .string()
  .trim()
  .min(1, 'is empty')
  .max(100, 'is longer than 100 characters')
  .regex(/^[\p{L}\p{N} '&.-]+$/u, 'may hold only letters, digits, spaces and \' & . -')

/**
 * `engine fonts add`: installs `@fontsource/<slug>` (with `variable`, `@fontsource-variable/<slug>`)
 * for each family through npm into the font cache, where every later render finds it (before the
 * bundled set; a variable package before a static one). Needs the npm registry once.
 */
export async function addFonts(families: readonly string[], options: {env?: NodeJS.ProcessEnv; npm?: string; variable?: boolean} = {}): Promise<CatalogFamily[]> {
  const scope = options.variable ? FONTSOURCE_VARIABLE_SCOPE : FONTSOURCE_SCOPE
  const env = options.env ?? process.env
  if (families.length === 0) throw new EngineError('INVALID_FLAG', 'engine fonts add: name at least one family, for example `engine fonts add "Inter"`')
  const packages = families.map((family) => {
    const parsed = familyName.safeParse(family)
    if (!parsed.success) {
      throw new EngineError('INVALID_FLAG', `family ${JSON.stringify(family)} ${parsed.error.issues[0].message}; give a family name such as "Playfair Display"`, {family})
    }
    return {family: parsed.data, packageName: `${scope}/${familySlug(parsed.data)}`}
  })
  const directory = installedFontsDirectory(env)
  await mkdir(directory, {recursive: true})
  const manifest = join(directory, 'package.json')
  await access(manifest).catch(() => writeFile(manifest, JSON.stringify({name: 'engine-fonts', private: true}, null, 2) + '\n'))
  await runNpm(
    options.npm ?? 'npm',
    ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--save', '--loglevel=error', ...packages.map((pkg) => pkg.packageName)],
    directory,
    env,
    packages,
    options.variable === true,
  )
  const installed: CatalogFamily[] = []
  for (const {family, packageName} of packages) {
    const entry = await readFontPackage(join(directory, 'node_modules', packageName), 'cache')
    if (!entry) throw new EngineError('FONT_FAILED', `${packageName} installed for "${family}" is not a Fontsource font package (no metadata.json, unicode.json or woff2 subsets)`, {family, packageName})
    installed.push(entry)
  }
  return installed
}

function runNpm(npm: string, args: string[], cwd: string, env: NodeJS.ProcessEnv, packages: {family: string; packageName: string}[], variable: boolean): Promise<void> {
  const families = packages.map((pkg) => pkg.family)
  return new Promise((resolve, reject) => {
    const child = spawn(npm, args, {cwd, env: {...process.env, ...env}, stdio: ['ignore', 'pipe', 'pipe']})
    let output = ''
    child.stdout.on('data', (chunk) => (output += chunk))
    child.stderr.on('data', (chunk) => (output += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), INSTALL_TIMEOUT_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(new EngineError('FONT_FAILED', `cannot run ${npm} (${error.message}); engine fonts add installs Fontsource packages with npm: install Node.js with npm`, {npm}))
    })
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      if (code === 0) return resolve()
      const notFound = /E404|404 Not Found|is not in this registry/i.test(output)
      const detail = output.trim().split('\n').slice(-5).join('\n')
      reject(
        new EngineError(
          'FONT_FAILED',
          notFound
            ? `no Fontsource package for ${families.map((family) => `"${family}"`).join(', ')} in the npm registry (looked for ${packages.map((pkg) => pkg.packageName).join(', ')}); check the family's spelling as Google Fonts or Fontsource writes it` +
              (variable ? ', or drop --variable: not every family has a variable font' : '')
            : `npm install failed${signal ? ` (${signal})` : ` (exit ${code})`} while adding ${families.join(', ')}:\n${detail}\nThe npm registry must be reachable once; after that renders need no network.`,
          {families, code, output: detail},
        ),
      )
    })
  })
}
