import {EngineError} from '../errors/engine-error.js'
import type {Mount} from './container-mounts.js'
import type {ContainerRuntime} from './detect-container-runtime.js'

/** The image is built for one platform so that every host runs the same browser binary (emulated on arm64). */
export const CONTAINER_PLATFORM = 'linux/amd64'
/** Chromium keeps its compositor buffers in /dev/shm; the runtimes' 64 MB default crashes it. */
export const DEFAULT_SHM_SIZE = '2g'

export interface HostUser {
  uid: number
  gid: number
}

export interface ContainerRunSpec {
  runtime: Pick<ContainerRuntime, 'name' | 'rootless'>
  image: string
  /** Unique per render, so that a cancelled render can stop exactly its container. */
  name: string
  mounts: readonly Mount[]
  env: Readonly<Record<string, string>>
  /** The host user files should belong to; absent on Windows, where the runtime maps ownership itself. */
  user?: HostUser
  shmSize?: string
  workdir: string
  /** The command after the image name (the image's entrypoint is `engine`). */
  command: readonly string[]
}

/**
 * Arguments of `<runtime> run` for one render. Files the render writes must belong to the host user:
 * rootful engines run the container as that uid:gid; rootless docker already maps container root
 * onto the host user; rootless podman needs `--userns keep-id` for the uid to mean the same thing
 * on both sides. SELinux labelling is turned off for the container instead of relabelling the
 * user's files. `--init` reaps the browser's child processes; `--pull never` keeps a missing image
 * from being looked up in a registry.
 */
export function containerRunArgs(spec: ContainerRunSpec): string[] {
  return [
    'run',
    '--rm',
    '--init',
    '--pull',
    'never',
    '--name',
    spec.name,
    '--platform',
    CONTAINER_PLATFORM,
    '--shm-size',
    spec.shmSize ?? DEFAULT_SHM_SIZE,
    ...userArgs(spec.runtime, spec.user),
    '--security-opt',
    'label=disable',
    '--workdir',
    spec.workdir,
    ...spec.mounts.flatMap((mount) => ['--mount', mountArg(mount)]),
    ...Object.entries(spec.env).flatMap(([name, value]) => ['--env', `${name}=${value}`]),
    spec.image,
    ...spec.command,
  ]
}

function userArgs(runtime: ContainerRunSpec['runtime'], user: HostUser | undefined): string[] {
  if (!user) return []
  if (runtime.name === 'docker' && runtime.rootless) return []
  const id = ['--user', `${user.uid}:${user.gid}`]
  return runtime.name === 'podman' && runtime.rootless ? ['--userns', 'keep-id', ...id] : id
}

/** `--mount` takes comma-separated fields, so a path with a comma cannot be said there. */
function mountArg(mount: Mount): string {
  for (const path of [mount.source, mount.target]) {
    if (path.includes(',')) {
      throw new EngineError('INVALID_FLAG', `--docker: cannot mount ${path} into the container because its path contains a comma; rename or move it`, {path})
    }
  }
  return `type=bind,source=${mount.source},target=${mount.target}${mount.readOnly ? ',readonly=true' : ''}`
}
