import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {mkdir, readFile, readdir, stat} from 'node:fs/promises'
import {basename, dirname, join, relative, sep} from 'node:path'
import {extract} from 'tar'
import {FUNCTION_CHROMIUM, functionChromiumPackName, functionChromiumPackUrl, type FunctionArch} from 'html-video-engine/internal/lib/browser/function-chromium.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {DETERMINISTIC_PROFILE} from 'html-video-engine/internal/lib/profile/render-profile.js'
import {BUNDLE_LAYOUT} from './bundle-layout.js'
import {EXTERNAL_PACKAGES} from './bundle-handler.js'
import {brotliElfArch} from './elf-arch.js'
import {findInstalledPackage, packageClosure, type InstalledPackage} from './locate-package.js'
import type {ZipEntry} from './write-zip.js'

export interface BundleFile extends ZipEntry {
  bytes: number
  /** What the file belongs to, for the size report ("@sparticuz/chromium", "ffprobe", "fonts"…). */
  part: string
}

const INSTALL_FIX = `install them with \`npm install --include=optional\` on Linux x86-64 under Node >= 22.17 (they are optional dependencies of html-video-engine-lambda)`

function requirePackage(name: string, from: string): InstalledPackage {
  const found = findInstalledPackage(name, from)
  if (!found) throw new EngineError('BUNDLE_FAILED', `the Lambda bundle needs the npm package ${name}, which is not installed: ${INSTALL_FIX}`, {package: name})
  return found
}

/** The files a Chromium pack holds: what the package's executablePath() unpacks at cold start. */
export const PACK_FILES = ['chromium.br', 'swiftshader.tar.br', 'fonts.tar.br', 'al2023.tar.br'] as const

export interface BrowserPartOptions {
  arch: FunctionArch
  /** A `chromium-v<version>-pack.<arch>.tar` from sparticuz's releases: its brotli files replace the package's bin/. */
  pack?: string
  workDir: string
}

/**
 * The serverless browser package and the packages it needs, as files under node_modules/. The
 * package carries the x64 build; for arm64 (or another build) the brotli files come from a pack.
 */
export async function browserFiles(packageRoot: string, options: BrowserPartOptions): Promise<{files: BundleFile[]; chromium: InstalledPackage}> {
  const files: BundleFile[] = []
  let chromium: InstalledPackage | undefined
  const packBin = options.pack ? await unpackPack(options.pack, options.workDir) : undefined
  if (!packBin && options.arch !== 'x86_64') {
    throw new EngineError(
      'BUNDLE_FAILED',
      `--arch ${options.arch}: the npm package ${FUNCTION_CHROMIUM.package} carries Chromium for x86_64 only; download ${functionChromiumPackUrl(options.arch)} and pass it with --chromium-pack <file>`,
      {part: 'chromium', arch: options.arch, download: functionChromiumPackUrl(options.arch)},
    )
  }
  for (const name of EXTERNAL_PACKAGES) {
    const root = requirePackage(name, packageRoot)
    chromium ??= root
    // The node_modules tree is kept as installed (nested copies stay nested) from the directory that
    // holds the package's node_modules.
    const base = dirname(root.directory.slice(0, -(root.name.length + 1)))
    for (const pkg of packageClosure(root)) {
      const inside = relative(base, pkg.directory)
      const prefix = inside.startsWith('..') ? `node_modules/${pkg.name}` : inside.split(sep).join('/')
      for (const path of await listFiles(pkg.directory)) {
        const within = relative(pkg.directory, path).split(sep).join('/')
        if (packBin && pkg === root && within.startsWith('bin/')) continue
        const bytes = (await stat(path)).size
        files.push({name: `${prefix}/${within}`, source: path, bytes, part: root.name, store: path.endsWith('.br')})
      }
      if (packBin && pkg === root) {
        for (const file of PACK_FILES) {
          const path = join(packBin, file)
          files.push({name: `${prefix}/bin/${file}`, source: path, bytes: (await stat(path)).size, part: root.name, store: true})
        }
      }
    }
  }
  const chromiumBr = packBin ? join(packBin, 'chromium.br') : join(chromium!.directory, 'bin', 'chromium.br')
  const built = await brotliElfArch(chromiumBr)
  if (built !== options.arch) {
    throw new EngineError(
      'BUNDLE_FAILED',
      `--arch ${options.arch}: the Chromium in ${options.pack ?? chromium!.directory} ${built ? `is built for ${built}` : 'is no Linux program'}; use ${functionChromiumPackName(options.arch)} (${functionChromiumPackUrl(options.arch)}) with --chromium-pack`,
      {part: 'chromium', arch: options.arch, built},
    )
  }
  return {files, chromium: chromium!}
}

/** Unpacks the pack's brotli files (and nothing else) into the work directory. */
async function unpackPack(pack: string, workDir: string): Promise<string> {
  const directory = join(workDir, 'chromium-pack')
  await mkdir(directory, {recursive: true})
  const wanted = new Set<string>(PACK_FILES)
  await extract({file: pack, cwd: directory, filter: (path) => wanted.has(path.replace(/^\.\//, ''))}).catch((error: unknown) => {
    throw new EngineError('INVALID_FLAG', `--chromium-pack: ${pack} cannot be read as a tar file (${(error as Error).message}); pass ${functionChromiumPackName('x86_64')} or its arm64 twin as published`, {field: 'chromium-pack', value: pack})
  })
  const missing = PACK_FILES.filter((file) => !existsSync(join(directory, file)))
  if (missing.length > 0) {
    throw new EngineError('INVALID_FLAG', `--chromium-pack: ${pack} lacks ${missing.join(', ')}; pass a ${FUNCTION_CHROMIUM.package} pack (${functionChromiumPackName('x86_64')} or its arm64 twin)`, {field: 'chromium-pack', value: pack, missing})
  }
  return directory
}

/**
 * The render profile's font files, checked against their pinned hashes: chunks must draw text with
 * the same faces as `--profile deterministic` and the container.
 */
export async function fontFiles(): Promise<BundleFile[]> {
  const files: BundleFile[] = []
  const problems: string[] = []
  for (const font of DETERMINISTIC_PROFILE.fonts.files) {
    const bytes = await readFile(font.path).catch(() => undefined)
    if (!bytes) problems.push(`${font.path} is missing`)
    else if (createHash('sha256').update(bytes).digest('hex') !== font.sha256) problems.push(`${font.path} is another version of the font`)
    else files.push({name: `${BUNDLE_LAYOUT.fonts}/${basename(font.path)}`, source: font.path, bytes: bytes.length, part: 'fonts'})
  }
  if (problems.length > 0) {
    const packages = DETERMINISTIC_PROFILE.fonts.packages.map((pkg) => `${pkg.name}=${pkg.version}`).join(' ')
    throw new EngineError('BUNDLE_FAILED', `the Lambda bundle carries the render profile's fonts, but ${problems.join('; ')}: install them (as root: \`apt-get install -y ${packages}\`)`, {problems})
  }
  return files
}

/** A package's own files: not its nested node_modules (those are packages of the closure), types or source maps. */
async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, {withFileTypes: true, recursive: true})
  return entries
    .filter((entry) => entry.isFile() && !/\.(d\.ts|map)$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .filter((path) => !relative(directory, path).split(sep).includes('node_modules'))
    .sort()
}
