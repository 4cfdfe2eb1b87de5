import {imageTag} from '../container/container-image.js'
import {detectContainerRuntime} from '../container/detect-container-runtime.js'
import {imageExists} from '../container/ensure-image.js'
import {CONTAINER_RUNTIME_ENV} from '../container/pick-container-runtime.js'
import type {DoctorCheck} from './doctor-check.js'

/** Optional: only `--docker` renders need it, so its absence never fails doctor. */
export async function checkContainerRuntime(): Promise<DoctorCheck> {
  const runtimes = await detectContainerRuntime()
  const reachable = runtimes.filter((runtime) => runtime.engineReachable)
  const usable = reachable.find((runtime) => runtime.name === process.env[CONTAINER_RUNTIME_ENV]) ?? reachable[0]
  if (usable) {
    const image = imageTag()
    const imageBuilt = await imageExists(usable, image)
    const state = imageBuilt ? 'is built' : 'is not built yet (the first --docker render builds it; `engine docker build` does it ahead)'
    return {
      name: 'container runtime',
      status: 'ok',
      required: false,
      summary: `${usable.name}${usable.rootless ? ' (rootless)' : ''}: ${usable.clientVersion}; image ${image} ${state}`,
      info: {runtimes, image, imageBuilt},
    }
  }
  if (runtimes.length > 0) {
    return {
      name: 'container runtime',
      status: 'missing',
      required: false,
      summary: runtimes.map((r) => `${r.name} client found but no engine is reachable (${r.problem})`).join('; '),
      fix: 'start the Docker engine (or podman machine), or render without --docker',
      info: {runtimes},
    }
  }
  return {
    name: 'container runtime',
    status: 'missing',
    required: false,
    summary: 'neither docker nor podman is installed (needed only for --docker)',
    fix: 'install Docker (https://docs.docker.com/engine/install/) or podman (apt-get install -y podman)',
    info: {runtimes},
  }
}
