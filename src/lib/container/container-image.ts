import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {packageRoot} from '../sandbox/package-root.js'
import {DETERMINISTIC_PROFILE} from '../profile/render-profile.js'
import {CONTAINER_PLATFORM} from './container-run-command.js'
import type {ContainerRuntimeName} from './detect-container-runtime.js'

export const IMAGE_REPOSITORY = 'engine-render'

/** This engine's version, from its package.json. */
export function engineVersion(root: string = packageRoot()): string {
  return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version: string}).version
}

/** One image per engine version: the engine inside always matches the one that started it. */
export function imageTag(version: string = engineVersion()): string {
  return `${IMAGE_REPOSITORY}:${version}`
}

export interface ImageBuildInput {
  runtime: ContainerRuntimeName
  tag: string
  version: string
  contextDir: string
}

/** Arguments of `<runtime> build` for the image (the context written by writeBuildContext). */
export function imageBuildArgs(input: ImageBuildInput): string[] {
  return [
    'build',
    '--platform',
    CONTAINER_PLATFORM,
    '--tag',
    input.tag,
    '--build-arg',
    `ENGINE_VERSION=${input.version}`,
    '--label',
    `org.opencontainers.image.version=${input.version}`,
    '--label',
    `engine.profile=${DETERMINISTIC_PROFILE.name}`,
    // Podman writes OCI images by default; the Docker format keeps the entrypoint metadata the same everywhere.
    ...(input.runtime === 'podman' ? ['--format', 'docker'] : []),
    '--file',
    join(input.contextDir, 'Dockerfile'),
    input.contextDir,
  ]
}
