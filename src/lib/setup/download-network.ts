import {rootCertificates} from 'node:tls'
import type {Dispatcher} from 'undici'
import {npmCertificates, readNpmConfig, type NpmConfig} from './npm-config.js'

/** One connection pool per distinct network setting, for the life of the process. */
const dispatchers = new Map<string, Promise<Dispatcher>>()

/**
 * The connection settings engine's downloads use: npm's (see readNpmConfig), so that a machine
 * where `npm install` works (a proxy, a company CA in `cafile`, `strict-ssl=false`) downloads the
 * browser and ffmpeg too. npm's CAs are trusted besides Node's own. undici is loaded only here, when
 * something is downloaded.
 */
export function downloadDispatcher(env: NodeJS.ProcessEnv = process.env): Promise<Dispatcher> {
  return dispatcherFor(readNpmConfig(env))
}

export function dispatcherFor(config: NpmConfig): Promise<Dispatcher> {
  const certificates = npmCertificates(config)
  const key = JSON.stringify([config.proxy, config.httpsProxy, config.noProxy, config.strictSsl, certificates])
  let dispatcher = dispatchers.get(key)
  if (!dispatcher) {
    dispatcher = import('undici').then(({EnvHttpProxyAgent}) => {
      const tls = {ca: certificates.length > 0 ? [...rootCertificates, ...certificates] : undefined, rejectUnauthorized: config.strictSsl}
      // Explicit empty values: the agent must not read the process's environment behind the caller's back.
      return new EnvHttpProxyAgent({httpProxy: config.proxy ?? '', httpsProxy: config.httpsProxy ?? config.proxy ?? '', noProxy: config.noProxy ?? '', connect: tls, requestTls: tls, proxyTls: tls})
    })
    dispatchers.set(key, dispatcher)
  }
  return dispatcher
}
