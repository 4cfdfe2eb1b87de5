import {stat} from 'node:fs/promises'
import {createServer, type IncomingMessage, type Server, type ServerResponse} from 'node:http'
import type {AddressInfo} from 'node:net'
import {dirname, join, relative, resolve, sep} from 'node:path'
import {z} from 'zod'
import {packageRoot} from '../sandbox/package-root.js'
import {EngineError, toEngineError} from '../errors/engine-error.js'
import type {Fps} from '../plan/fps.js'
import {ChangeFeed} from './change-feed.js'
import {fontCacheDirectory} from '../fonts/font-cache-dir.js'
import {compositionDocument, PREVIEW_FONTS_PATH} from './composition-document.js'
import {loadRuntimeBundle} from '../capture/runtime-bundle.js'
import {loadPreviewState, type PreviewTarget} from './load-preview-state.js'
import {playerPage} from './player-page.js'
import {PREVIEW_ROUTES, VARIABLES_PARAMETER, type PreviewState} from './client/preview-protocol.js'
import {sendFile} from '../files/send-file.js'
import {projectFile} from '../sandbox/project-file.js'
import {projectRoot} from '../sandbox/project-root.js'
import {watchDirectory, type DirectoryWatcher} from './watch-directory.js'

export interface PreviewServerOptions {
  /** Composition HTML file, as the user named it. */
  composition: string
  /** 0 picks a free port. */
  port: number
  /** `--fps` or the config file's; absent: the root's data-fps, else 30 (read again on every reload). */
  fps?: Fps
  /** Called after files under the composition's directory changed and the page was told. */
  onChange?: (files: string[]) => void
}

export interface PreviewServer {
  url: string
  /** Directory files are served from (see `projectRoot`). */
  root: string
  close(): Promise<void>
}

/** Where `npm run build` puts the player page's scripts (compiled from src/lib/preview/client). */
const CLIENT_DIR = join('dist', 'src', 'lib', 'preview', 'client')
const CLIENT_FILE = /^[a-z0-9-]+\.js(\.map)?$/
/** Content-addressed names only: nothing else of the cache is reachable. */
const FONT_FILE = /^[0-9a-f]{64}\.(?:woff2|woff|ttf|otf)$/

/**
 * Starts the preview server: the player page at `/`, the composition compiled with the variables
 * the page asks for at its own path under the project root (so relative URLs resolve as in a
 * render), every other project file statically, and a server-sent event stream that announces
 * changes under the composition's directory.
 */
export async function startPreviewServer(options: PreviewServerOptions): Promise<PreviewServer> {
  const file = resolve(options.composition)
  await assertFile(file, options.composition)
  const root = projectRoot(file)
  const segments = relative(root, file).split(sep)
  const documentPath = '/' + segments.map(encodeURIComponent).join('/')
  const target: PreviewTarget = {file: options.composition, documentPath, fps: options.fps}
  const feed = new ChangeFeed()
  let state: {revision: number; value: Promise<PreviewState>} | undefined
  const currentState = () => {
    if (state?.revision !== feed.revision) state = {revision: feed.revision, value: loadPreviewState(target, feed.revision)}
    return state.value
  }

  const routes: Record<string, (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>> = {
    '/': async (_req, res) => send(res, 200, 'text/html; charset=utf-8', playerPage(options.composition)),
    [PREVIEW_ROUTES.state]: async (_req, res) => send(res, 200, 'application/json; charset=utf-8', JSON.stringify(await currentState())),
    [PREVIEW_ROUTES.events]: async (_req, res) => feed.subscribe(res),
    [PREVIEW_ROUTES.runtime]: async (_req, res) => send(res, 200, 'text/javascript; charset=utf-8', await loadRuntimeBundle()),
    ['/' + segments.join('/')]: async (_req, res, url) => {
      const variables = parseVariablesParameter(url.searchParams.get(VARIABLES_PARAMETER))
      const html = await compositionDocument(file, {variables, fps: options.fps, runtimeUrl: PREVIEW_ROUTES.runtime})
      send(res, 200, 'text/html; charset=utf-8', html)
    },
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!isLocalHost(req.headers.host, server)) throw new EngineError('UNAUTHORIZED', `the preview answers only to localhost, not to Host "${req.headers.host}"`)
    const crossSite = crossSiteProblem(req)
    if (crossSite) throw new EngineError('ORIGIN_NOT_ALLOWED', `the preview answers only its own page, not ${crossSite}`)
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new EngineError('NOT_FOUND', `the preview serves GET requests only, not ${req.method}`)
    const url = new URL(req.url ?? '/', 'http://preview.invalid')
    const pathname = decodePath(url.pathname)
    const route = routes[pathname]
    if (route) return route(req, res, url)
    if (pathname.startsWith(PREVIEW_FONTS_PATH)) {
      const name = pathname.slice(PREVIEW_FONTS_PATH.length)
      if (FONT_FILE.test(name) && (await sendFile(req, res, join(fontCacheDirectory(), name)))) return
      throw new EngineError('NOT_FOUND', `no font ${name} in the font cache`)
    }
    if (pathname.startsWith(PREVIEW_ROUTES.client)) {
      const name = pathname.slice(PREVIEW_ROUTES.client.length)
      if (CLIENT_FILE.test(name) && (await sendFile(req, res, join(packageRoot(), CLIENT_DIR, name)))) return
      throw new EngineError('NOT_FOUND', `no player script ${name}; run \`npm run build\``)
    }
    // Answers name the URL path only: the project's place on disk is not the page's business.
    const found = await projectFile(root, pathname)
    if (found.kind === 'outside') throw new EngineError('PATH_OUTSIDE_ROOT', `${pathname} leads outside the project, the only directory the preview serves`)
    if (found.kind === 'hidden') throw new EngineError('PATH_OUTSIDE_ROOT', `${pathname} is a dot-file or inside a dot-folder, which the preview never serves`)
    if (found.kind === 'missing' || !(await sendFile(req, res, found.path))) throw new EngineError('NOT_FOUND', `${pathname} is not a file of the project`)
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return res.destroy()
      const engineError = toEngineError(error)
      send(res, STATUS[engineError.code] ?? 500, 'application/json; charset=utf-8', JSON.stringify({error: engineError.toJSON()}))
    })
  })
  // The preview serves the project's files: it listens on loopback only.
  await listen(server, options.port, '127.0.0.1')
  let watcher: DirectoryWatcher | undefined
  try {
    watcher = watchDirectory(dirname(file), root, (files) => {
      feed.publish(files)
      options.onChange?.(files)
    })
  } catch {
    // Without a watcher the preview still works; the page just does not reload by itself.
  }
  const {port} = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    root,
    close: async () => {
      watcher?.close()
      feed.close()
      server.closeAllConnections()
      await new Promise<void>((resolveClose) => server.close(() => resolveClose()))
    },
  }
}

const STATUS: Partial<Record<EngineError['code'], number>> = {
  INVALID_REQUEST: 400,
  UNAUTHORIZED: 403,
  ORIGIN_NOT_ALLOWED: 403,
  PATH_OUTSIDE_ROOT: 403,
  NOT_FOUND: 404,
  COMPOSITION_NOT_FOUND: 404,
  COMPOSITION_INVALID: 422,
}

async function assertFile(file: string, display: string): Promise<void> {
  const info = await stat(file).catch(() => undefined)
  if (!info?.isFile()) {
    throw new EngineError('COMPOSITION_NOT_FOUND', `composition: ${display} ${info ? 'is not a file' : 'does not exist'}; pass the path of a composition HTML file`, {
      path: display,
    })
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolveListen, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new EngineError('INVALID_FLAG', `--port ${port}: the port is already in use; pass another --port (0 picks a free one)`, {port})
          : new EngineError('INTERNAL', `the preview server could not listen on ${host}:${port}: ${error.message}`, {port, host}),
      )
    })
    server.listen(port, host, () => resolveListen())
  })
}

/**
 * A web page the user visits elsewhere could point a DNS name at 127.0.0.1 and read the project's
 * files; only requests addressed to the loopback names are answered.
 */
function isLocalHost(header: string | undefined, server: Server): boolean {
  const address = server.address() as AddressInfo | null
  if (!header || !address) return false
  const port = String(address.port)
  return ['localhost', '127.0.0.1', '[::1]'].some((name) => header === `${name}:${port}`)
}

/**
 * A page on another site may still send requests here (an image, a form, a script tag) and time
 * or probe what comes back: the browser labels them with Sec-Fetch-Site, and with Origin where it
 * sends one. Only the preview's own page (same-origin) and the user typing the address (none)
 * are answered.
 */
function crossSiteProblem(req: IncomingMessage): string | undefined {
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return `a request from another site (Sec-Fetch-Site: ${site})`
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `http://${req.headers.host}`) return `a request from the page ${JSON.stringify(origin.slice(0, 200))}`
  return undefined
}

const variablesSchema = z.record(z.string(), z.unknown())

function parseVariablesParameter(text: string | null): Record<string, unknown> {
  if (text === null) return {}
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    value = undefined
  }
  const parsed = variablesSchema.safeParse(value)
  if (!parsed.success) throw new EngineError('INVALID_REQUEST', `the ${VARIABLES_PARAMETER} parameter must be a JSON object of variable values`)
  return parsed.data
}

function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname)
  } catch {
    throw new EngineError('NOT_FOUND', `${pathname} is not a valid path`)
  }
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, {'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-store'})
  res.end(body)
}
