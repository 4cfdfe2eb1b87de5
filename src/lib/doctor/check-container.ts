import {detectContainerRuntime} from '../container/detect-container-runtime.js'
import type {DoctorCheck} from './doctor-check.js'

/** Optional: only `--docker` renders need it, so its absence never fails doctor. */
export async function checkContainerRuntime(): Promise<DoctorCheck> {
  const runtimes = await detectContainerRuntime()
  const usable = runtimes.find((runtime) => runtime.engineReachable)
  if (usable) {
    return {name: 'container runtime', status: 'ok', required: false, summary: `${usable.name}: ${usable.clientVersion}`, info: {runtimes}}
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
