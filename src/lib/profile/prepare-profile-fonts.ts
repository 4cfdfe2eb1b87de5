import {createHash} from 'node:crypto'
import {mkdir, readFile, rename, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {engineCacheDir} from '../browser/engine-cache-dir.js'
import {EngineError} from '../errors/engine-error.js'
import {fontsConf} from './fonts-conf.js'
import type {RenderProfile} from './render-profile.js'

/** Checked once per process: the files do not change under a running render. */
const prepared = new Map<string, Promise<string>>()

/**
 * Checks that every font file of the profile is on this machine with exactly the pinned contents,
 * and writes the profile's fonts.conf into engine's cache. Resolves with the path of that file,
 * for FONTCONFIG_FILE.
 */
export function prepareProfileFonts(profile: RenderProfile, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const directory = join(engineCacheDir(env), 'profiles', profile.name)
  let result = prepared.get(directory)
  if (!result) {
    result = prepare(profile, directory)
    prepared.set(directory, result)
    result.catch(() => prepared.delete(directory))
  }
  return result
}

async function prepare(profile: RenderProfile, directory: string): Promise<string> {
  await verifyFontFiles(profile)
  const path = join(directory, 'fonts.conf')
  const contents = fontsConf(profile.fonts, join(directory, 'fontconfig-cache'))
  const current = await readFile(path, 'utf8').catch(() => undefined)
  if (current !== contents) {
    try {
      await mkdir(directory, {recursive: true})
      const temporary = `${path}.${process.pid}.tmp`
      await writeFile(temporary, contents)
      await rename(temporary, path)
    } catch (error) {
      throw new EngineError(
        'PROFILE_UNAVAILABLE',
        `--profile ${profile.name}: cannot write ${path} (${(error as Error).message}); set ENGINE_CACHE_DIR to a writable directory`,
        {path},
      )
    }
  }
  return path
}

async function verifyFontFiles(profile: RenderProfile): Promise<void> {
  const problems: string[] = []
  await Promise.all(
    profile.fonts.files.map(async (file) => {
      let bytes: Buffer
      try {
        bytes = await readFile(file.path)
      } catch {
        problems.push(`${file.path} is missing`)
        return
      }
      const sha256 = createHash('sha256').update(bytes).digest('hex')
      if (sha256 !== file.sha256) problems.push(`${file.path} is another version of the font (sha256 ${sha256}, expected ${file.sha256})`)
    }),
  )
  if (problems.length === 0) return
  const packages = profile.fonts.packages.map((pkg) => `${pkg.name}=${pkg.version}`).join(' ')
  throw new EngineError(
    'PROFILE_UNAVAILABLE',
    `--profile ${profile.name} renders with a fixed font set, but ${problems.sort().join('; ')}. ` +
      `Install the pinned fonts (as root: \`apt-get install -y ${packages}\`) or render in the container with --docker`,
    {profile: profile.name, problems},
  )
}
