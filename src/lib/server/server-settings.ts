import {realpath, stat} from 'node:fs/promises'
import {resolve} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {RENDER_DEFAULTS} from '../plan/render-options.js'
import {isLoopbackHost} from './authorize.js'

export const DEFAULT_PORT = 9847
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_KEEP_OUTPUTS = 20
export const MAX_CONCURRENT_RENDERS_ENV = 'PRODUCER_MAX_CONCURRENT_RENDERS'
export const TOKEN_ENV = 'ENGINE_SERVER_TOKEN'

/** What `engine serve` was given, before validation. */
export interface ServerFlags {
  port?: number
  host?: string
  root?: string
  maxConcurrentRenders?: number
  maxQueue?: number
  token?: string
  outputDir?: string
  keepOutputs?: number
}

export interface ServerSettings {
  port: number
  host: string
  /** Real path of the directory compositions must live in. */
  root: string
  maxConcurrentRenders: number
  maxQueue?: number
  token?: string
  outputDir?: string
  keepOutputs: number
}

function checkInteger(value: number, flag: string, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new EngineError('INVALID_FLAG', `${flag}: ${value} is out of range; use an integer from ${min} to ${max}`, {flag, value})
  }
  return value
}

/** The flag wins over the environment variable, which wins over the default (2). */
export function resolveMaxConcurrentRenders(flag: number | undefined, env: NodeJS.ProcessEnv): number {
  if (flag !== undefined) return checkInteger(flag, '--max-concurrent-renders', 1, 10)
  const text = env[MAX_CONCURRENT_RENDERS_ENV]
  if (text === undefined || text.trim() === '') return RENDER_DEFAULTS.maxConcurrentRenders
  const value = Number(text.trim())
  if (!/^\d+$/.test(text.trim()) || value < 1 || value > 10) {
    throw new EngineError(
      'INVALID_CONFIG',
      `${MAX_CONCURRENT_RENDERS_ENV}: "${text}" is not valid; set it to an integer from 1 to 10, or pass --max-concurrent-renders`,
      {env: MAX_CONCURRENT_RENDERS_ENV, value: text},
    )
  }
  return value
}

/** Validates the settings of `engine serve`; `env` supplies the concurrency and the token. */
export async function resolveServerSettings(flags: ServerFlags, env: NodeJS.ProcessEnv, cwd = process.cwd()): Promise<ServerSettings> {
  const host = flags.host ?? DEFAULT_HOST
  const token = flags.token ?? env[TOKEN_ENV]
  if (token !== undefined && token.trim() === '') {
    throw new EngineError('INVALID_FLAG', `--token / ${TOKEN_ENV} is empty; give a long random token or leave it unset`)
  }
  if (!isLoopbackHost(host) && token === undefined) {
    throw new EngineError(
      'INVALID_FLAG',
      `--host ${host} is reachable from other machines, so the server needs a token: pass --token <secret> or set ${TOKEN_ENV} (clients send it as "Authorization: Bearer <secret>"), or bind 127.0.0.1`,
      {host},
    )
  }
  const rootPath = resolve(cwd, flags.root ?? '.')
  let root: string
  try {
    root = await realpath(rootPath)
  } catch {
    throw new EngineError('INVALID_FLAG', `--root: ${rootPath} does not exist`, {root: rootPath})
  }
  if (!(await stat(root)).isDirectory()) throw new EngineError('INVALID_FLAG', `--root: ${rootPath} is not a directory`, {root: rootPath})
  return {
    port: checkInteger(flags.port ?? DEFAULT_PORT, '--port', 0, 65535),
    host,
    root,
    maxConcurrentRenders: resolveMaxConcurrentRenders(flags.maxConcurrentRenders, env),
    maxQueue: flags.maxQueue === undefined ? undefined : checkInteger(flags.maxQueue, '--max-queue', 0, 100_000),
    token,
    outputDir: flags.outputDir === undefined ? undefined : resolve(cwd, flags.outputDir),
    keepOutputs: checkInteger(flags.keepOutputs ?? DEFAULT_KEEP_OUTPUTS, '--keep-outputs', 1, 100_000),
  }
}
