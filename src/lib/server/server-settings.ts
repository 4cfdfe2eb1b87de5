import {realpath, stat} from 'node:fs/promises'
import {availableParallelism} from 'node:os'
import {resolve} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {DEFAULT_RENDER_LIMITS, type RenderLimits} from '../plan/render-limits.js'
import {MAX_WORKERS, RENDER_DEFAULTS} from '../plan/render-options.js'
import {defaultWorkerCount} from '../plan/worker-count.js'
import {WEBHOOK_SECRET_ENV} from '../notify/index.js'
import {isLoopbackHost} from './authorize.js'
import {parseAllowedHost} from './check-host.js'
import {normalizeOrigin} from './origin-policy.js'

export const DEFAULT_PORT = 9847
export const DEFAULT_HOST = '127.0.0.1'
export const DEFAULT_KEEP_OUTPUTS = 20
export const MAX_CONCURRENT_RENDERS_ENV = 'PRODUCER_MAX_CONCURRENT_RENDERS'
export const TOKEN_ENV = 'ENGINE_SERVER_TOKEN'
export {WEBHOOK_SECRET_ENV}

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
  /** Extra names clients may use in the Host header (`--allowed-host`, repeatable). */
  allowedHosts?: string[]
  /** Web page origins allowed to call the server (`--allow-origin`, repeatable). */
  allowOrigins?: string[]
  /** Seconds of video one request may render (`--max-duration`). */
  maxDuration?: number | string
  /** Pixels per frame, as a count or `<width>x<height>` (`--max-pixels`). */
  maxPixels?: string
  /** Capture workers one request may use (`--max-workers`). */
  maxWorkers?: number
  webhookSecret?: string
  allowWebhookHosts?: string[]
  /** `--no-network`: compositions reach no public URL either. */
  network?: boolean
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
  allowedHosts: string[]
  /** Serialised origins (`https://app.example.com`). */
  allowOrigins: string[]
  limits: RenderLimits
  maxWorkers: number
  /** Signs the webhooks clients ask for; without it, requests naming a webhook are refused. */
  webhookSecret?: string
  /** Hosts a webhook may name even though they are loopback or private (the operator's choice). */
  allowWebhookHosts: string[]
  /** Compositions may load public http(s) URLs (false: `--no-network`). Private addresses never. */
  network: boolean
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
  const webhookSecret = flags.webhookSecret ?? env[WEBHOOK_SECRET_ENV]
  if (webhookSecret !== undefined && webhookSecret.trim() === '') {
    throw new EngineError('INVALID_FLAG', `--webhook-secret / ${WEBHOOK_SECRET_ENV} is empty; give a long random secret or leave it unset`)
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
    allowedHosts: (flags.allowedHosts ?? []).map(checkAllowedHost),
    allowOrigins: (flags.allowOrigins ?? []).map(checkOrigin),
    limits: {
      maxDurationSeconds: checkMaxDuration(flags.maxDuration ?? DEFAULT_RENDER_LIMITS.maxDurationSeconds),
      maxPixels: flags.maxPixels === undefined ? DEFAULT_RENDER_LIMITS.maxPixels : parseMaxPixels(flags.maxPixels),
    },
    maxWorkers: checkInteger(flags.maxWorkers ?? defaultWorkerCount(availableParallelism()), '--max-workers', 1, MAX_WORKERS),
    webhookSecret,
    network: flags.network !== false,
    allowWebhookHosts: flags.allowWebhookHosts ?? [],
  }
}

function checkAllowedHost(entry: string): string {
  if (parseAllowedHost(entry) === undefined) {
    throw new EngineError('INVALID_FLAG', `--allowed-host: "${entry}" is not a host name; give a name such as render.example.com or render.example.com:9847`, {
      allowedHost: entry,
    })
  }
  return entry.trim()
}

function checkOrigin(entry: string): string {
  const origin = normalizeOrigin(entry)
  if (origin === undefined) {
    throw new EngineError(
      'INVALID_FLAG',
      `--allow-origin: "${entry}" is not an origin; give the scheme, host and port of the web page, such as https://app.example.com or http://localhost:5173`,
      {allowOrigin: entry},
    )
  }
  return origin
}

function checkMaxDuration(value: number | string): number {
  const seconds = typeof value === 'number' ? value : /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : Number.NaN
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new EngineError('INVALID_FLAG', `--max-duration: "${value}" is not a positive number of seconds of video (default ${DEFAULT_RENDER_LIMITS.maxDurationSeconds})`, {
      maxDuration: value,
    })
  }
  return seconds
}

/** `8294400` or `3840x2160`. */
export function parseMaxPixels(text: string): number {
  const size = /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(text)
  const value = size ? Number(size[1]) * Number(size[2]) : /^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new EngineError('INVALID_FLAG', `--max-pixels: "${text}" is not a pixel count; give a number such as 8294400 or a size such as 3840x2160`, {
      maxPixels: text,
    })
  }
  return value
}
