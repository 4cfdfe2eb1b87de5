import {execFile} from 'node:child_process'
import {promisify} from 'node:util'

const run = promisify(execFile)

export interface ContainerRuntime {
  name: 'docker' | 'podman'
  /** Client version, when the client binary exists. */
  clientVersion?: string
  /** Whether the client reached a running engine that can start containers. */
  engineReachable: boolean
  problem?: string
}

async function probe(name: 'docker' | 'podman'): Promise<ContainerRuntime | undefined> {
  let clientVersion: string
  try {
    const {stdout} = await run(name, ['--version'], {timeout: 5000})
    clientVersion = stdout.trim()
  } catch {
    return undefined
  }
  try {
    await run(name, ['info', '--format', '{{json .}}'], {timeout: 10_000})
    return {name, clientVersion, engineReachable: true}
  } catch (error) {
    const stderr = String((error as {stderr?: string}).stderr ?? (error as Error).message).trim()
    return {name, clientVersion, engineReachable: false, problem: stderr.split('\n')[0]}
  }
}

/**
 * Docker first, then podman. A client without a reachable engine is reported as such, so that
 * the user learns what to start rather than what to install.
 */
export async function detectContainerRuntime(): Promise<ContainerRuntime[]> {
  const found = await Promise.all([probe('docker'), probe('podman')])
  return found.filter((runtime): runtime is ContainerRuntime => runtime !== undefined)
}
