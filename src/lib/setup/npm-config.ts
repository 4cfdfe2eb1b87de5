import {readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {dirname, join} from 'node:path'
import {parse} from 'ini'
import {EngineError} from '../errors/engine-error.js'

/**
 * What npm itself is told about the network, so that engine's downloads work wherever `npm
 * install` does: the registry, the CAs to trust, a proxy, strict TLS, and the cache where npm
 * keeps the tarballs it fetched.
 */
export interface NpmConfig {
  /** The registry (no trailing slash), when one is set; npm's default otherwise. */
  registry?: string
  /** `cafile`: a PEM file of CAs to trust besides Node's own. */
  cafile?: string
  /** `ca`: PEM certificates given inline. */
  ca: readonly string[]
  proxy?: string
  httpsProxy?: string
  noProxy?: string
  /** `strict-ssl` (default true): refuse a certificate no trusted CA signed. */
  strictSsl: boolean
  /** npm's cache folder (`cache`, default ~/.npm); its tarballs live under `_cacache`. */
  cache: string
  /** Where each setting came from (`env npm_config_cafile`, `/root/.npmrc`), for messages. */
  sources: Readonly<Record<string, string>>
}

type Layer = {source: string; values: Record<string, unknown>}

/**
 * npm's settings as npm resolves them for a global command: `npm_config_*` environment variables
 * over the user's npmrc (`~/.npmrc`, or `npm_config_userconfig`) over the global one
 * (`<prefix>/etc/npmrc`, or `npm_config_globalconfig`), with `${VAR}` replaced in values. A
 * project's .npmrc is not read: a project must not choose where the programs engine runs come from.
 * The proxy settings default to HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as npm's do.
 */
export function readNpmConfig(env: NodeJS.ProcessEnv = process.env): NpmConfig {
  const fromEnv = envLayer(env)
  const home = env.HOME || homedir()
  const userFile = stringValue(fromEnv.values.userconfig) ?? join(home, '.npmrc')
  const prefix = stringValue(fromEnv.values.prefix) ?? dirname(dirname(process.execPath))
  const globalFile = stringValue(fromEnv.values.globalconfig) ?? join(prefix, 'etc', 'npmrc')
  const layers = [fromEnv, fileLayer(userFile, env), fileLayer(globalFile, env)]
  const sources: Record<string, string> = {}
  const pick = (key: string): unknown => {
    for (const layer of layers) {
      if (layer.values[key] !== undefined && layer.values[key] !== null && layer.values[key] !== '') {
        sources[key] = layer.source
        return layer.values[key]
      }
    }
    return undefined
  }
  const registry = stringValue(pick('registry'))
  const ca = pick('ca')
  return {
    registry: registry ? trimSlash(registry) : undefined,
    cafile: stringValue(pick('cafile')),
    ca: (Array.isArray(ca) ? ca : ca === undefined ? [] : [ca]).map(String).map((pem) => pem.replace(/\\n/g, '\n')),
    proxy: stringValue(pick('proxy')) ?? (env.HTTP_PROXY || env.http_proxy || undefined),
    httpsProxy: stringValue(pick('https-proxy')) ?? (env.HTTPS_PROXY || env.https_proxy || undefined),
    noProxy: stringValue(pick('noproxy')) ?? (env.NO_PROXY || env.no_proxy || undefined),
    strictSsl: !/^(false|0)$/i.test(String(pick('strict-ssl') ?? 'true')),
    cache: stringValue(pick('cache')) ?? join(home, '.npm'),
    sources,
  }
}

/** The PEM certificates of `cafile` and `ca`; a cafile that cannot be read is an error naming it and where it was set. */
export function npmCertificates(config: NpmConfig): string[] {
  const certificates = [...config.ca]
  if (config.cafile) {
    try {
      certificates.push(readFileSync(config.cafile, 'utf8'))
    } catch (error) {
      throw new EngineError(
        'INVALID_CONFIG',
        `npm's cafile "${config.cafile}" (from ${config.sources.cafile ?? 'npm config'}) cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); point it at a PEM file of the CAs to trust, or remove it`,
        {field: 'cafile', value: config.cafile, source: config.sources.cafile},
      )
    }
  }
  return certificates
}

/** `npm_config_strict_ssl`, `NPM_CONFIG_HTTPS-PROXY`…: npm reads them case-insensitively, `_` for `-`. */
function envLayer(env: NodeJS.ProcessEnv): Layer {
  const values: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(env)) {
    const match = /^npm_config_(.+)$/i.exec(name)
    if (!match || value === undefined) continue
    const key = match[1].toLowerCase()
    // Scoped keys keep their characters (`@scope:registry`); the others use `-` for npm's `_`.
    values[key.startsWith('@') || key.startsWith('//') ? key : key.replace(/_/g, '-')] = value
  }
  return {source: 'the environment (npm_config_*)', values}
}

function fileLayer(file: string, env: NodeJS.ProcessEnv): Layer {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch {
    return {source: file, values: {}}
  }
  const values: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(parse(text))) {
    values[key] = typeof value === 'string' ? substitute(value, env) : Array.isArray(value) ? value.map((item) => substitute(String(item), env)) : value
  }
  return {source: file, values}
}

/** `${NAME}` in an npmrc value is the environment variable's value, as npm reads it. */
function substitute(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(/(\\*)\$\{([^}]+)\}/g, (whole, slashes: string, name: string) => (slashes.length % 2 ? whole.slice(1) : `${slashes}${env[name] ?? ''}`))
}

function stringValue(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : typeof value === 'boolean' ? String(value) : undefined
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '')
}
