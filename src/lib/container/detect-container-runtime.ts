import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

const run = promisify(execFile)

export type ContainerRuntimeName = 'docker' | 'podman'
export const CONTAINER_RUNTIME_NAMES: readonly ContainerRuntimeName[] = ['docker', 'podman']

export interface ContainerRuntime {
  name: ContainerRuntimeName
  /** Client version, when the client binary exists. */
  clientVersion?: string
  /** Whether the client reached a running engine that can start containers. */
  engineReachable: boolean
  /**
   * The engine runs without root (rootless docker, podman as a normal user): container users map
   * onto the host differently, so the run command is built differently.
   */
  rootless?: boolean
  problem?: string
}

async function probe(name: ContainerRuntimeName): Promise<ContainerRuntime | undefined> {
  let clientVersion: string
  try {
    const {stdout} = await run(name, ['--version'], {timeout: 5000})
    clientVersion = stdout.trim()
  } catch {
    return undefined
  }
  try {
    const {stdout} = await run(name, ['info', '--format', '{{json .}}'], {timeout: 10_000})
    return {name, clientVersion, engineReachable: true, rootless: isRootless(name, stdout)}
  } catch (error) {
    const stderr = String((error as {stderr?: string}).stderr ?? (error as Error).message).trim()
    return {name, clientVersion, engineReachable: false, problem: stderr.split('\n')[0]}
  }
}

/** Reads rootlessness from `<runtime> info --format '{{json .}}'`. */
export function isRootless(name: ContainerRuntimeName, infoJson: string): boolean {
  try {
    const info = JSON.parse(infoJson) as {SecurityOptions?: unknown; host?: {security?: {rootless?: unknown}}}
    if (name === 'podman') return info.host?.security?.rootless === true
    return Array.isArray(info.SecurityOptions) && info.SecurityOptions.some((option) => String(option).includes('name=rootless'))
  } catch {
    return false
  }
}

/**
 * Docker first, then podman. A client without a reachable engine is reported as such, so that
 * the user learns what to start rather than what to install.
 */
export async function detectContainerRuntime(): Promise<ContainerRuntime[]> {
  const found = await Promise.all(CONTAINER_RUNTIME_NAMES.map(probe))
  return found.filter((runtime): runtime is ContainerRuntime => runtime !== undefined)
}
