import type {AddressInfo} from 'node:net'
import {pathRedactor} from './redact-paths.js'
import {EngineError} from '../errors/engine-error.js'
import {createServer} from './create-server.js'
import {OutputStore} from './output-store.js'
import {RenderService, type RenderFunction} from './render-service.js'
import type {ServerSettings} from './server-settings.js'

export interface StartServerOptions {
  /** Stand-in for renderComposition (tests). */
  render?: RenderFunction
  /** One line per request lifecycle step. */
  log?: (line: string) => void
  maxBodyBytes?: number
}

export interface RunningServer {
  /** Base address, such as http://127.0.0.1:9847 */
  url: string
  port: number
  service: RenderService
  /** Cancels queued and running renders, waits for them to stop, then closes every connection. */
  close(): Promise<void>
}

/** Starts `engine serve` with validated settings. */
export async function startServer(settings: ServerSettings, options: StartServerOptions = {}): Promise<RunningServer> {
  const outputs = await OutputStore.open({dir: settings.outputDir, keep: settings.keepOutputs})
  const service = new RenderService({
    maxConcurrentRenders: settings.maxConcurrentRenders,
    maxQueue: settings.maxQueue,
    outputs,
    render: options.render,
    log: options.log,
    limits: settings.limits,
    maxWorkers: settings.maxWorkers,
    webhookPolicy: {allowPrivate: false, allowedHosts: settings.allowWebhookHosts},
    root: settings.root,
    network: settings.network,
  })
  const server = createServer({
    service,
    root: settings.root,
    token: settings.token,
    maxBodyBytes: options.maxBodyBytes,
    allowedHosts: settings.allowedHosts,
    allowOrigins: settings.allowOrigins,
    webhookSecret: settings.webhookSecret,
    redact: pathRedactor({[settings.root]: '<root>', [outputs.dir]: '<output-dir>'}),
  })
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(settings.port, settings.host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    await outputs.close()
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === 'EADDRINUSE' ? 'is already in use' : code === 'EADDRNOTAVAIL' ? 'is not an address of this machine' : `cannot be bound (${code ?? (error as Error).message})`
    throw new EngineError('INVALID_FLAG', `--host ${settings.host} --port ${settings.port} ${reason}`, {host: settings.host, port: settings.port})
  }
  const {port} = server.address() as AddressInfo
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    port,
    service,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        await service.close()
        server.closeAllConnections()
        await stopped
      })()),
  }
}
