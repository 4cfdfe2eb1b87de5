import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFile, readdir, stat} from 'node:fs/promises'
import {basename, dirname, join, relative, sep} from 'node:path'
import {promisify} from 'node:util'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {parseEncoderList} from 'html-video-engine/internal/lib/encode/list-encoders.js'
import {DETERMINISTIC_PROFILE} from 'html-video-engine/internal/lib/profile/render-profile.js'
import {BUNDLE_LAYOUT} from './bundle-layout.js'
import {EXTERNAL_PACKAGES} from './bundle-handler.js'
import {findInstalledPackage, packageClosure, type InstalledPackage} from './locate-package.js'
import type {ZipEntry} from './write-zip.js'

/** npm packages that carry static Linux x86-64 binaries in their tarballs (nothing downloaded at install). */
export const FFMPEG_PACKAGE = '@ffmpeg-installer/linux-x64'
export const FFPROBE_PACKAGE = '@ffprobe-installer/linux-x64'
/** Encoders the formats that distributed renders write need: mp4 (x264, aac), webm (vp9, opus), mov, gif. */
export const REQUIRED_ENCODERS = ['libx264', 'libvpx-vp9', 'libopus', 'aac', 'prores_ks', 'gif', 'png'] as const

export interface BundleFile extends ZipEntry {
  bytes: number
  /** What the file belongs to, for the size report ("@sparticuz/chromium", "ffprobe", "fonts"…). */
  part: string
}

export interface BinaryInfo {
  package: string
  packageVersion: string
  /** `ffmpeg -version`'s version, when this machine can run the binary. */
  version?: string
  encoders?: string[]
}

const execFileAsync = promisify(execFile)
const INSTALL_FIX = `install them with \`npm install --include=optional\` on Linux x86-64 under Node >= 22.17 (they are optional dependencies of engine)`

function requirePackage(name: string, from: string): InstalledPackage {
  const found = findInstalledPackage(name, from)
  if (!found) throw new EngineError('BUNDLE_FAILED', `the Lambda bundle needs the npm package ${name}, which is not installed: ${INSTALL_FIX}`, {package: name})
  return found
}

/** The serverless browser package and the packages it needs, as files under node_modules/. */
export async function browserFiles(packageRoot: string): Promise<{files: BundleFile[]; chromium: InstalledPackage}> {
  const files: BundleFile[] = []
  let chromium: InstalledPackage | undefined
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
        const bytes = (await stat(path)).size
        const name = `${prefix}/${relative(pkg.directory, path).split(sep).join('/')}`
        files.push({name, source: path, bytes, part: root.name, store: path.endsWith('.br')})
      }
    }
  }
  return {files, chromium: chromium!}
}

/** ffmpeg and ffprobe at bin/, with what this build can encode when the binary runs here. */
export async function encoderFiles(packageRoot: string): Promise<{files: BundleFile[]; ffmpeg: BinaryInfo; ffprobe: BinaryInfo}> {
  const ffmpegPackage = requirePackage(FFMPEG_PACKAGE, packageRoot)
  const ffprobePackage = requirePackage(FFPROBE_PACKAGE, packageRoot)
  const ffmpegPath = join(ffmpegPackage.directory, 'ffmpeg')
  const ffprobePath = join(ffprobePackage.directory, 'ffprobe')
  const [ffmpeg, ffprobe] = await Promise.all([describeBinary(ffmpegPackage, ffmpegPath, true), describeBinary(ffprobePackage, ffprobePath, false)])
  if (ffmpeg.encoders) {
    const missing = REQUIRED_ENCODERS.filter((name) => !ffmpeg.encoders!.includes(name))
    if (missing.length > 0) {
      throw new EngineError('BUNDLE_FAILED', `${FFMPEG_PACKAGE}@${ffmpegPackage.version} lacks the encoders ${missing.join(', ')} that distributed renders use`, {missing})
    }
  }
  const files: BundleFile[] = [
    {name: BUNDLE_LAYOUT.ffmpeg, source: ffmpegPath, mode: 0o755, bytes: (await stat(ffmpegPath)).size, part: 'ffmpeg'},
    {name: BUNDLE_LAYOUT.ffprobe, source: ffprobePath, mode: 0o755, bytes: (await stat(ffprobePath)).size, part: 'ffprobe'},
  ]
  return {files, ffmpeg, ffprobe}
}

async function describeBinary(pkg: InstalledPackage, path: string, listEncoders: boolean): Promise<BinaryInfo> {
  const info: BinaryInfo = {package: pkg.name, packageVersion: pkg.version}
  // A binary for another platform (a bundle built on macOS) cannot run here: record the package only.
  if (process.platform !== 'linux' || process.arch !== 'x64') return info
  const {stdout} = await execFileAsync(path, ['-hide_banner', '-version'], {timeout: 10_000})
  info.version = /version (\S+)/.exec(stdout)?.[1]
  if (listEncoders) {
    const encoders = await execFileAsync(path, ['-hide_banner', '-encoders'], {timeout: 10_000, maxBuffer: 4 * 1024 * 1024})
    info.encoders = [...parseEncoderList(encoders.stdout)].filter((name) => (REQUIRED_ENCODERS as readonly string[]).includes(name)).sort()
  }
  return info
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
