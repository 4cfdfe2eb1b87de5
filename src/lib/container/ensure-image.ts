import {rm} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {writeBuildContext} from './build-context.js'
import {engineVersion, imageBuildArgs, imageTag} from './container-image.js'
import type {ContainerRuntime} from './detect-container-runtime.js'
import {runContainerClient} from './run-container-client.js'
import {makeTempDirectory} from '../files/temp-directory.js'

export interface BuildImageOptions {
  runtime: Pick<ContainerRuntime, 'name'>
  tag?: string
  version?: string
  /** Each line the build prints. */
  onLog?: (line: string) => void
  signal?: AbortSignal
}

/** Whether the runtime already has `tag`. */
export async function imageExists(runtime: Pick<ContainerRuntime, 'name'>, tag: string): Promise<boolean> {
  const {exitCode} = await runContainerClient(runtime.name, ['image', 'inspect', '--format', '{{.Id}}', tag])
  return exitCode === 0
}

/**
 * Builds the image from the package's docker/ directory and this engine (`engine docker build`, or
 * the first `--docker` render). The build needs the internet: Debian's snapshot archive, the npm
 * registry and the Node base image.
 */
export async function buildImage(options: BuildImageOptions): Promise<string> {
  const version = options.version ?? engineVersion()
  const tag = options.tag ?? imageTag(version)
  const contextDir = await makeTempDirectory('image')
  try {
    await writeBuildContext(contextDir)
    const args = imageBuildArgs({runtime: options.runtime.name, tag, version, contextDir})
    const {exitCode, stderrTail} = await runContainerClient(options.runtime.name, args, {
      onStdout: options.onLog,
      onStderr: options.onLog,
      signal: options.signal,
    })
    if (options.signal?.aborted) throw new EngineError('CANCELLED', `the build of ${tag} was cancelled`)
    if (exitCode !== 0) {
      throw new EngineError(
        'CONTAINER_FAILED',
        `${options.runtime.name} build of ${tag} failed (exit ${exitCode}): ${stderrTail.slice(-3).join(' | ')}. ` +
          'The build downloads the Node base image, Debian packages from snapshot.debian.org and npm packages: check the connection and run `engine docker build` again; ' +
          'on a machine without internet, load an image built elsewhere (`docker save` there, `docker load` here)',
        {tag, exitCode, log: stderrTail},
      )
    }
    return tag
  } finally {
    await rm(contextDir, {recursive: true, force: true})
  }
}

/** The image for this engine version: reused when present, built on first use. */
export async function ensureImage(options: BuildImageOptions & {onBuildStart?: (tag: string) => void}): Promise<string> {
  const tag = options.tag ?? imageTag(options.version)
  if (await imageExists(options.runtime, tag)) return tag
  options.onBuildStart?.(tag)
  return buildImage({...options, tag})
}
