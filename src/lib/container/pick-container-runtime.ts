import {EngineError} from '../errors/engine-error.js'
import {CONTAINER_RUNTIME_NAMES, type ContainerRuntime, type ContainerRuntimeName} from './detect-container-runtime.js'

/** Environment variable that picks podman over docker (or the reverse) when both are usable. */
export const CONTAINER_RUNTIME_ENV = 'ENGINE_CONTAINER_RUNTIME'

const INSTALL = 'install Docker (https://docs.docker.com/engine/install/) or podman (`apt-get install -y podman`)'
const INSTEAD = 'or render without --docker (on Linux, --profile deterministic uses the same browser flags and fonts without a container)'

export interface PickOptions {
  /** The runtime asked for, and where it was asked (a flag or the environment variable). */
  preferred?: string
  preferredFrom?: string
  /** What needs the runtime, to begin the error message (default: a --docker render). */
  purpose?: string
}

/**
 * The runtime to use: the preferred one when it is usable, else the first usable one (docker
 * before podman). With none usable, the error says what to install or to start.
 */
export function pickContainerRuntime(runtimes: readonly ContainerRuntime[], options: PickOptions = {}): ContainerRuntime {
  const {preferred, preferredFrom = CONTAINER_RUNTIME_ENV, purpose = '--docker renders in a container'} = options
  if (preferred !== undefined && !CONTAINER_RUNTIME_NAMES.includes(preferred as ContainerRuntimeName)) {
    throw new EngineError('INVALID_FLAG', `${preferredFrom}: "${preferred}" is not a container runtime engine can use; use docker or podman`, {
      field: preferredFrom,
      value: preferred,
    })
  }
  const usable = runtimes.filter((runtime) => runtime.engineReachable)
  const chosen = usable.find((runtime) => runtime.name === preferred) ?? usable[0]
  if (chosen) return chosen
  if (runtimes.length === 0) {
    throw new EngineError('CONTAINER_UNAVAILABLE', `${purpose}, but neither docker nor podman is installed: ${INSTALL}, ${INSTEAD}`, {runtimes: []})
  }
  const found = runtimes.map((runtime) => `${runtime.name} is installed (${runtime.clientVersion ?? 'version unknown'}) but cannot reach its engine (${runtime.problem ?? 'no answer'})`)
  throw new EngineError(
    'CONTAINER_UNAVAILABLE',
    `${purpose}, but ${found.join('; ')}. Start the engine (Docker: \`sudo systemctl start docker\` or open Docker Desktop; podman: \`podman machine start\` on macOS and Windows), ${INSTEAD}`,
    {runtimes},
  )
}
