import {existsSync} from 'node:fs'
import {mkdir, rm, stat} from 'node:fs/promises'
import {basename, dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {RUNTIME_BUNDLE_PATH} from 'html-video-engine/internal/lib/capture/runtime-bundle.js'
import {packageRoot as enginePackageRoot} from 'html-video-engine/internal/lib/sandbox/package-root.js'
import {engineVersion} from 'html-video-engine/internal/lib/container/container-image.js'
import {listFormats} from 'html-video-engine/internal/lib/encode/format-registry.js'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import type {InstalledPlugin} from 'html-video-engine/internal/lib/config/installed-plugins.js'
import {hashFile} from '../site-files.js'
import {bundleHandler} from './bundle-handler.js'
import {BUNDLE_HANDLER, BUNDLE_LAYOUT} from './bundle-layout.js'
import {browserFiles, fontFiles, type BundleFile} from './bundle-parts.js'
import {encoderFiles, type BinaryInfo} from './encoder-parts.js'
import type {FunctionArch} from 'html-video-engine/internal/lib/browser/function-chromium.js'
import {pluginFiles, type BundledPlugin} from './plugin-files.js'
import {writeZip} from './write-zip.js'
import {makeTempDirectory} from 'html-video-engine/internal/lib/files/temp-directory.js'
import {downloadMirrors} from 'html-video-engine/internal/lib/setup/download-mirrors.js'
import {allStopped} from '../all-stopped.js'

/** Lambda allows 250 MiB unzipped; the rest is headroom for what the runtime adds. */
export const MAX_UNZIPPED_BYTES = 248 * 1024 * 1024
export const DEFAULT_BUNDLE_NAME = 'engine-lambda.zip'

export interface BuildBundleOptions {
  output: string
  /** The companion package whose handler and binaries to bundle (default: this one). */
  packageRoot?: string
  maxUnzippedBytes?: number
  /** The user's plugins to carry, so their formats render on the function (default: none). */
  plugins?: readonly InstalledPlugin[]
  /** The function's architecture (default x86_64); every binary in the bundle is checked to be built for it. */
  arch?: FunctionArch
  /** A static ffmpeg and ffprobe to carry instead of the pinned build (`--ffmpeg`, `--ffprobe`). */
  ffmpegPath?: string
  ffprobePath?: string
  /** Where the pinned ffmpeg's archive is served (default: ENGINE_FFMPEG_MIRROR, else its publisher). */
  ffmpegMirror?: string
  /** Told what the bundle carries in place of what it should (the npm ffmpeg when the pinned one cannot be downloaded). */
  onWarning?: (message: string) => void
  /** The pinned ffmpeg's first download, as it goes. */
  onProgress?: (label: string, downloadedBytes: number, totalBytes: number) => void
  /** A sparticuz Chromium pack whose brotli files replace the package's (`--chromium-pack`; needed for arm64). */
  chromiumPack?: string
}

export interface BundlePart {
  part: string
  bytes: number
}

export interface BundleManifest {
  engine: string
  handler: string
  /** Lambda's architecture name; deploy refuses a bundle for another one. */
  arch: FunctionArch
  /** `pack` names the pack file when the brotli files came from one. */
  chromium: {package: string; version: string; pack?: string}
  ffmpeg: BinaryInfo
  ffprobe: BinaryInfo
  fonts: string[]
  /** npm packages compiled into handler.mjs. */
  handlerPackages: string[]
  /** Plugins whose hooks the function registers at cold start. */
  plugins: BundledPlugin[]
  /** Formats the function renders: the built-in ones and those of the bundled plugins. */
  formats: string[]
  unzippedBytes: number
  parts: BundlePart[]
}

export interface BundleReport extends BundleManifest {
  path: string
  zipBytes: number
  /** sha256 of the zip: the same inputs give the same zip. */
  sha256: string
}

/**
 * Builds the function bundle for one architecture: the handler compiled into one ES module, the
 * serverless Chromium package (unpacked to /tmp at cold start; its brotli files from a pack when
 * one is given), static ffmpeg and ffprobe (the pinned build, the build given, or the npm packages' when the pinned one cannot be downloaded), the render profile's fonts,
 * the in-page runtime and the hooks of the user's plugins. Nothing of the CLI, the local stack or
 * deploy-only clients goes in. Fails above the unzipped limit, naming the largest parts; nothing is left at `output` then.
 */
export async function buildLambdaBundle(options: BuildBundleOptions): Promise<BundleReport> {
  const root = enginePackageRoot()
  const companionRoot = options.packageRoot ?? enginePackageRoot(dirname(fileURLToPath(import.meta.url)))
  const limit = options.maxUnzippedBytes ?? MAX_UNZIPPED_BYTES
  const output = resolve(options.output)
  const arch = options.arch ?? 'x86_64'
  const workDir = await makeTempDirectory('bundle')
  try {
    const handlerPath = join(workDir, BUNDLE_LAYOUT.handler)
    // The parts write into the work directory: it is removed only once all of them have stopped.
    const [handler, browser, encoders, fonts, plugins] = await allStopped([
      bundleHandler(companionRoot, root, handlerPath),
      browserFiles(companionRoot, {arch, pack: options.chromiumPack, workDir}),
      encoderFiles(companionRoot, {arch, ffmpegPath: options.ffmpegPath, ffprobePath: options.ffprobePath, mirror: options.ffmpegMirror ?? downloadMirrors().ffmpeg, onWarning: options.onWarning, onProgress: options.onProgress}),
      fontFiles(),
      pluginFiles(options.plugins ?? [], workDir),
    ] as const)
    const runtimePath = join(root, RUNTIME_BUNDLE_PATH)
    if (!existsSync(runtimePath)) throw new EngineError('BUNDLE_FAILED', `${runtimePath} is missing: run \`npm run build\` first`, {runtimePath})
    const version = engineVersion(root)
    const packageJson = Buffer.from(JSON.stringify({name: 'engine-lambda', version, type: 'module', private: true}, null, 2) + '\n')

    const files: BundleFile[] = [
      {name: BUNDLE_LAYOUT.handler, source: handlerPath, bytes: (await stat(handlerPath)).size, part: 'handler'},
      ...(existsSync(`${handlerPath}.LEGAL.txt`) ? [{name: `${BUNDLE_LAYOUT.handler}.LEGAL.txt`, source: `${handlerPath}.LEGAL.txt`, bytes: (await stat(`${handlerPath}.LEGAL.txt`)).size, part: 'handler'}] : []),
      {name: 'package.json', source: packageJson, bytes: packageJson.length, part: 'handler'},
      {name: RUNTIME_BUNDLE_PATH.split('\\').join('/'), source: runtimePath, bytes: (await stat(runtimePath)).size, part: 'page runtime'},
      ...encoders.files,
      ...fonts,
      ...plugins.files,
      ...browser.files,
    ]
    const partial: Omit<BundleManifest, 'unzippedBytes' | 'parts'> = {
      engine: version,
      handler: BUNDLE_HANDLER,
      arch,
      chromium: {package: browser.chromium.name, version: browser.chromium.version, ...(options.chromiumPack && {pack: basename(options.chromiumPack)})},
      ffmpeg: encoders.ffmpeg,
      ffprobe: encoders.ffprobe,
      fonts: fonts.map((font) => font.name),
      handlerPackages: [...handler.packages.keys()].filter((name) => name !== '(engine)').sort(),
      plugins: plugins.plugins,
      // This process registered the same plugins the bundle carries, so it knows their formats.
      formats: listFormats().map((format) => format.name),
    }
    // The manifest counts itself: estimate with its size at the largest the numbers can make it.
    const manifestAllowance = Buffer.byteLength(JSON.stringify(partial, null, 2)) + 4096
    const unzippedBytes = files.reduce((sum, file) => sum + file.bytes, 0) + manifestAllowance
    const parts = summarise(files)
    if (unzippedBytes > limit) {
      throw new EngineError(
        'BUNDLE_TOO_LARGE',
        `the Lambda bundle would be ${mib(unzippedBytes)} unzipped, over the ${mib(limit)} limit (Lambda allows 250 MiB). ` +
          `Largest parts: ${parts.slice(0, 5).map((part) => `${part.part} ${mib(part.bytes)}`).join(', ')}`,
        {unzippedBytes, limit, parts},
      )
    }
    const manifest: BundleManifest = {...partial, unzippedBytes, parts}
    const entries = [...files, {name: BUNDLE_LAYOUT.manifest, source: Buffer.from(JSON.stringify(manifest, null, 2) + '\n')}]
    await mkdir(dirname(output), {recursive: true})
    await writeZip(output, entries)
    const zipBytes = (await stat(output)).size
    return {...manifest, path: output, zipBytes, sha256: (await hashFile(output)).sha256}
  } finally {
    await rm(workDir, {recursive: true, force: true})
  }
}

/** Bytes per part, largest first. */
function summarise(files: readonly BundleFile[]): BundlePart[] {
  const sizes = new Map<string, number>()
  for (const file of files) sizes.set(file.part, (sizes.get(file.part) ?? 0) + file.bytes)
  return [...sizes].map(([part, bytes]) => ({part, bytes})).sort((a, b) => b.bytes - a.bytes)
}

export function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`
}
