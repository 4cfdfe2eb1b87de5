import {execFile} from 'node:child_process'
import {stat} from 'node:fs/promises'
import {join} from 'node:path'
import {promisify} from 'node:util'
import type {FunctionArch} from 'html-video-engine/internal/lib/browser/function-chromium.js'
import {parseEncoderList} from 'html-video-engine/internal/lib/encode/list-encoders.js'
import {PINNED_FFMPEG} from 'html-video-engine/internal/lib/encode/pinned-ffmpeg.js'
import {EngineError, toEngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {installPinnedFfmpeg, type PinnedFfmpegResult} from 'html-video-engine/internal/lib/setup/install-pinned-ffmpeg.js'
import {hashFile} from '../site-files.js'
import {BUNDLE_LAYOUT} from './bundle-layout.js'
import type {BundleFile} from './bundle-parts.js'
import {fileElfInfo} from './elf-arch.js'
import {findInstalledPackage} from './locate-package.js'

/** Encoders the formats that distributed renders write need: mp4 (x264, aac), webm (vp9, opus), mov, gif. */
export const REQUIRED_ENCODERS = ['libx264', 'libvpx-vp9', 'libopus', 'aac', 'prores_ks', 'gif', 'png'] as const

/**
 * npm packages that carry static Linux builds in their tarballs (nothing downloaded at install),
 * per architecture: what the bundle carries when the pinned build (PINNED_FFMPEG) cannot be
 * downloaded and none is named. Their ffmpeg dates from 2018.
 */
export const ENCODER_PACKAGES: Readonly<Record<FunctionArch, {ffmpeg: string; ffprobe: string}>> = {
  x86_64: {ffmpeg: '@ffmpeg-installer/linux-x64', ffprobe: '@ffprobe-installer/linux-x64'},
  arm64: {ffmpeg: '@ffmpeg-installer/linux-arm64', ffprobe: '@ffprobe-installer/linux-arm64'},
}

export interface BinaryInfo {
  /** 'pinned': the pinned static build (downloaded into the cache); 'flag': --ffmpeg/--ffprobe; 'npm-package': the fallback. */
  source: 'pinned' | 'flag' | 'npm-package'
  /** The pinned build's archive, when it came from it. */
  pinned?: {version: string; archive: string; archiveSha256: string; url: string}
  /** The npm package the binary came from, when it came from one. */
  package?: string
  packageVersion?: string
  /** The file given with --ffmpeg / --ffprobe, when one was. */
  path?: string
  sha256: string
  arch: FunctionArch
  /** Linked against the shared libraries of the machine it was built for: it runs on Lambda only if they are in the bundle. */
  dynamic: boolean
  /** `-version`'s version, when this machine can run the binary. */
  version?: string
  encoders?: string[]
}

export interface EncoderPartOptions {
  arch: FunctionArch
  /** --ffmpeg and --ffprobe: a static build to carry instead of the pinned one. */
  ffmpegPath?: string
  ffprobePath?: string
  /** Where the pinned build's archive is served instead of its publisher (ENGINE_FFMPEG_MIRROR). */
  mirror?: string
  /** Told when the pinned build cannot be had and the npm builds go in instead. */
  onWarning?: (message: string) => void
  /** The pinned build's first download, as it goes (label: the archive's name). */
  onProgress?: (label: string, downloadedBytes: number, totalBytes: number) => void
  env?: NodeJS.ProcessEnv
}

const execFileAsync = promisify(execFile)

/**
 * ffmpeg and ffprobe at bin/, with what this build can encode when the binary runs here: the build
 * named with --ffmpeg/--ffprobe, else the pinned static build (from engine's cache, downloaded
 * there the first time), else, when it cannot be downloaded, the npm packages' builds with a warning.
 */
export async function encoderFiles(packageRoot: string, options: EncoderPartOptions): Promise<{files: BundleFile[]; ffmpeg: BinaryInfo; ffprobe: BinaryInfo}> {
  if (Boolean(options.ffmpegPath) !== Boolean(options.ffprobePath)) {
    const missing = options.ffmpegPath ? 'ffprobe' : 'ffmpeg'
    throw new EngineError('INVALID_FLAG', `--${missing} is missing: pass --ffmpeg and --ffprobe together, the two programs of one build`, {field: missing})
  }
  const pinned = options.ffmpegPath ? undefined : await pinnedBuild(options)
  const [ffmpeg, ffprobe] = await Promise.all(
    (['ffmpeg', 'ffprobe'] as const).map((program) => {
      const path = program === 'ffmpeg' ? options.ffmpegPath : options.ffprobePath
      if (path) return namedBinary(program, path, options.arch)
      return pinned ? pinnedBinary(program, pinned, options.arch) : packageBinary(program, packageRoot, options.arch)
    }),
  )
  if (ffmpeg.info.encoders) {
    const missing = REQUIRED_ENCODERS.filter((name) => !ffmpeg.info.encoders!.includes(name))
    if (missing.length > 0) {
      throw new EngineError('BUNDLE_FAILED', `${describe(ffmpeg)} lacks the encoders ${missing.join(', ')} that distributed renders use; pass a build that has them with --ffmpeg/--ffprobe`, {part: 'ffmpeg', missing})
    }
  }
  const files: BundleFile[] = [
    {name: BUNDLE_LAYOUT.ffmpeg, source: ffmpeg.source, mode: 0o755, bytes: (await stat(ffmpeg.source)).size, part: 'ffmpeg'},
    {name: BUNDLE_LAYOUT.ffprobe, source: ffprobe.source, mode: 0o755, bytes: (await stat(ffprobe.source)).size, part: 'ffprobe'},
  ]
  return {files, ffmpeg: ffmpeg.info, ffprobe: ffprobe.info}
}

function describe(binary: {info: BinaryInfo}): string {
  if (binary.info.pinned) return `the pinned ffmpeg ${binary.info.pinned.version} (${binary.info.pinned.archive})`
  return binary.info.path ?? `${binary.info.package}@${binary.info.packageVersion}`
}

/** The pinned build for the bundle's architecture, or undefined (with a warning) when it cannot be had. */
async function pinnedBuild(options: EncoderPartOptions): Promise<PinnedFfmpegResult | undefined> {
  const pinned = PINNED_FFMPEG[options.arch]
  try {
    return await installPinnedFfmpeg(pinned, {mirror: options.mirror, env: options.env, onProgress: (done, total) => options.onProgress?.(pinned.archive, done, total)})
  } catch (error) {
    const packages = ENCODER_PACKAGES[options.arch]
    options.onWarning?.(
      `the bundle carries the npm builds ${packages.ffmpeg} and ${packages.ffprobe} (ffmpeg from 2018), not the pinned ffmpeg ${pinned.version}, which could not be downloaded: ${toEngineError(error).message}`,
    )
    return undefined
  }
}

async function pinnedBinary(program: 'ffmpeg' | 'ffprobe', installed: PinnedFfmpegResult, arch: FunctionArch): Promise<{source: string; info: BinaryInfo}> {
  const source = program === 'ffmpeg' ? installed.ffmpegPath : installed.ffprobePath
  const elf = await fileElfInfo(source)
  if (elf?.arch !== arch) {
    throw new EngineError('BUNDLE_FAILED', `${source} is not a Linux ${arch} program: remove ${installed.directory} and run the bundle again`, {part: program, path: source})
  }
  const {record} = installed
  const pinned = {version: record.version, archive: PINNED_FFMPEG[arch].archive, archiveSha256: record.sha256, url: record.url}
  return {source, info: await describeBinary(program, source, {source: 'pinned', pinned, sha256: (await hashFile(source)).sha256, arch, dynamic: elf.dynamic})}
}

async function namedBinary(program: 'ffmpeg' | 'ffprobe', path: string, arch: FunctionArch): Promise<{source: string; info: BinaryInfo}> {
  const fail = (reason: string): never => {
    throw new EngineError('INVALID_FLAG', `--${program}: ${path} ${reason}`, {field: program, value: path})
  }
  const file = await stat(path).catch(() => fail(`does not exist; pass the ${program} of a static Linux build (docs/guides/serverless-local/bundle.md names the pinned one)`))
  if (!file.isFile()) fail('is not a file')
  const elf = await fileElfInfo(path)
  if (!elf) fail(`is not a Linux program (no 64-bit ELF header); pass the ${program} of a static Linux ${arch} build`)
  if (elf!.arch !== arch) fail(`is built for ${elf!.arch}, not --arch ${arch}; pass the ${arch} build`)
  return {source: path, info: await describeBinary(program, path, {source: 'flag', path, sha256: (await hashFile(path)).sha256, arch, dynamic: elf!.dynamic})}
}

async function packageBinary(program: 'ffmpeg' | 'ffprobe', packageRoot: string, arch: FunctionArch): Promise<{source: string; info: BinaryInfo}> {
  const name = ENCODER_PACKAGES[arch][program]
  const pkg = findInstalledPackage(name, packageRoot)
  if (!pkg) {
    const fix =
      arch === 'x86_64'
        ? 'install it with `npm install --include=optional` on Linux x86-64 (an optional dependency of engine)'
        : `pass an arm64 static build with --ffmpeg <file> --ffprobe <file> (docs/guides/serverless-local/bundle.md names the pinned one), or install the package beside engine: \`npm install --no-save --force ${name}\``
    throw new EngineError('BUNDLE_FAILED', `--arch ${arch}: the bundle's ${program} comes from the npm package ${name}, which is not installed: ${fix}`, {part: program, arch, package: name})
  }
  const source = join(pkg.directory, program)
  const elf = await fileElfInfo(source)
  if (elf?.arch !== arch) {
    throw new EngineError('BUNDLE_FAILED', `${name}@${pkg.version}: ${source} is not a Linux ${arch} program; reinstall the package`, {part: program, package: name})
  }
  return {source, info: await describeBinary(program, source, {source: 'npm-package', package: name, packageVersion: pkg.version, sha256: (await hashFile(source)).sha256, arch, dynamic: elf.dynamic})}
}

async function describeBinary(program: 'ffmpeg' | 'ffprobe', path: string, info: BinaryInfo): Promise<BinaryInfo> {
  // A binary for another machine (an arm64 bundle built on x86-64, one built on macOS) cannot run here.
  const host = process.arch === 'x64' ? 'x86_64' : process.arch
  if (process.platform !== 'linux' || host !== info.arch) return info
  const run = (args: string[]) =>
    execFileAsync(path, ['-hide_banner', ...args], {timeout: 10_000, maxBuffer: 4 * 1024 * 1024}).catch((error: Error) => {
      throw new EngineError('BUNDLE_FAILED', `${path} does not run here (${error.message.split('\n')[0]}); pass a working ${program} build`, {part: program, path})
    })
  const {stdout} = await run(['-version'])
  const version = /version (\S+)/.exec(stdout)?.[1]
  if (program === 'ffprobe') return {...info, version}
  const encoders = await run(['-encoders'])
  return {...info, version, encoders: [...parseEncoderList(encoders.stdout)].filter((name) => (REQUIRED_ENCODERS as readonly string[]).includes(name)).sort()}
}
