import {readFile, stat} from 'node:fs/promises'
import {EngineError} from '../errors/engine-error.js'
import {contentType} from './content-type.js'
import {fetchRemote, MAX_DOWNLOAD_BYTES, type DownloadAllowance, type RemoteFile} from './fetch-remote.js'
import type {NetworkSettings} from './network-settings.js'
import {engineAssetDirectory, type EngineAssetKind} from './page-origin.js'
import {projectFile} from './project-file.js'
import {routeRequest} from './route-request.js'

/** A response the engine gives the page in place of the network. */
export interface PageResponse {
  status: number
  headers: {name: string; value: string}[]
  body: Buffer
}

/** What the page's requests ran into, reported once per URL. */
export interface RequestNotice {
  code: 'blocked-request' | 'request-failed' | 'asset-missing'
  url: string
  message: string
  /** `asset-missing`: the project path the page asked for (`/assets/logo.png`). */
  path?: string
}

export interface PageRequestsOptions {
  /** The compiled page, served at `documentUrl`. */
  html: string
  documentUrl: string
  /** Files of the page origin come from here, and only from here. */
  projectDir: string
  network: NetworkSettings
  downloadTimeoutMs?: number
  /** What the render may download in all (default RENDER_DOWNLOAD_BYTES). */
  downloadAllowanceBytes?: number
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
  onNotice?: (notice: RequestNotice) => void
}

const HIDDEN_REASON = 'dot-files and dot-folders (.env, .git, .npmrc …) are never served to a page'

/** Larger files are refused: the answer travels through the DevTools pipe in one message. */
export const MAX_SERVED_BYTES = 128 * 1024 ** 2
/** What one render may download in all (files already in the cache cost nothing). */
export const RENDER_DOWNLOAD_BYTES = 4 * 1024 ** 3
/** Requests whose missing file leaves the frame without something the author drew (DevTools resource types). */
const ASSET_TYPES: Readonly<Record<string, string>> = {Image: 'an image', Stylesheet: 'a stylesheet', Script: 'a script'}

/** Only content-addressed font files and extracted video frames are engine assets. */
const ASSET_PATHS: Record<EngineAssetKind, RegExp> = {
  fonts: /^[0-9a-f]{64}\.(woff2|woff|ttf|otf)$/,
  media: /^frames\/[^/]+\/[^/]+$/,
}

/**
 * The one policy for everything a composition's page loads during one render, shared by its
 * media stage and all its capture workers: the compiled document, the project's files (confined
 * to the project, symlinks resolved), the engine's font and frame files, and public http(s) URLs
 * fetched once per render through the download cache. Everything else is blocked. Blocked and
 * failed URLs are reported once each; `fetchedUrls` lists the remote URLs the render used.
 */
export class PageRequests {
  /** Each URL's download and the size it was allowed, so that a larger cap starts it again. */
  private readonly downloads = new Map<string, {maxBytes: number; file: Promise<RemoteFile>}>()
  private readonly allowance: DownloadAllowance
  private readonly fetched: string[] = []
  private readonly reported = new Set<string>()
  private readonly document: Buffer
  private readonly projectReads = new Map<string, string | null>()

  constructor(private readonly options: PageRequestsOptions) {
    this.document = Buffer.from(options.html, 'utf8')
    const allowed = options.downloadAllowanceBytes ?? RENDER_DOWNLOAD_BYTES
    this.allowance = {remainingBytes: allowed, limitBytes: allowed}
  }

  /**
   * The project paths the page and its media asked for (`/assets/logo.png`), each with the file it
   * got, or null when there was none: what the render's pixels depend on beyond its plan (the
   * render cache checks them again before it reuses an output).
   */
  get projectFilesRead(): ReadonlyMap<string, string | null> {
    return new Map(this.projectReads)
  }

  /** Remote URLs this render loaded, in the order first asked for. */
  get fetchedUrls(): string[] {
    return [...this.fetched]
  }

  /**
   * The answer to one request of the page: a response, the browser's own ('browser'), or
   * 'blocked'. `resourceType` (DevTools' name: Image, Script…) makes a missing project file of a
   * kind the frame shows an `asset-missing` notice.
   */
  async answer(url: string, resourceType?: string): Promise<PageResponse | 'browser' | 'blocked'> {
    const route = routeRequest(url, this.options.documentUrl)
    switch (route.kind) {
      case 'browser':
        return 'browser'
      case 'document':
        return respond(200, 'text/html; charset=utf-8', this.document)
      case 'blocked':
        this.notice('blocked-request', url, `blocked ${url}: ${route.reason}`)
        return 'blocked'
      case 'asset':
        if (!ASSET_PATHS[route.assetKind].test(route.relativePath)) return notFound()
        return this.serveFile(url, await projectFile(engineAssetDirectory(route.assetKind, this.options.env), route.relativePath))
      case 'project': {
        const found = await projectFile(this.options.projectDir, route.urlPath)
        this.noteRead(route.urlPath, found)
        const kind = resourceType === undefined ? undefined : ASSET_TYPES[resourceType]
        if (found.kind === 'missing' && kind !== undefined) {
          const message = `the page asked for ${kind}, ${route.urlPath.slice(1)}, which does not exist in ${this.options.projectDir}: it renders blank; add the file or fix the path`
          this.notice('asset-missing', url, message, route.urlPath)
        }
        return this.serveFile(url, found)
      }
      case 'remote':
        return this.serveRemote(url)
    }
  }

  /**
   * Reports a URL the browser refused before any request was made (a `file:` image or fetch from
   * the page origin), the same way as one the policy blocked.
   */
  reportRefused(url: string): void {
    const route = routeRequest(url, this.options.documentUrl)
    this.notice('blocked-request', url, `blocked ${url}: ${route.kind === 'blocked' ? route.reason : 'the browser refused it'}`)
  }

  /**
   * The local file behind a source URL the page resolved (a media element's src): a project file,
   * or a remote URL downloaded through the policy. Throws MEDIA_NOT_FOUND, REQUEST_BLOCKED or
   * MEDIA_FAILED (the download failed), each naming `element`.
   */
  async locate(url: string, element: string): Promise<string> {
    const route = routeRequest(url, this.options.documentUrl)
    if (route.kind === 'project') {
      const found = await projectFile(this.options.projectDir, route.urlPath)
      this.noteRead(route.urlPath, found)
      if (found.kind === 'file') return found.path
      if (found.kind === 'hidden') {
        this.notice('blocked-request', url, `blocked ${url}: ${HIDDEN_REASON}`)
        throw new EngineError('REQUEST_BLOCKED', `${element}: ${url} is a dot-file or inside a dot-folder; ${HIDDEN_REASON}`, {element, url})
      }
      if (found.kind === 'outside') {
        this.notice('blocked-request', url, `blocked ${url}: it is outside the project ${this.options.projectDir}`)
        throw new EngineError('REQUEST_BLOCKED', `${element}: ${url} is outside the project ${this.options.projectDir}; keep media inside the project`, {element, url})
      }
      throw new EngineError('MEDIA_NOT_FOUND', `${element}: the source file ${route.urlPath} does not exist in ${this.options.projectDir}; fix its src (relative paths are resolved against the composition file)`, {
        element,
        path: route.urlPath,
      })
    }
    if (route.kind === 'remote') {
      try {
        return (await this.download(url, MAX_DOWNLOAD_BYTES)).path
      } catch (error) {
        if (!(error instanceof EngineError) || error.code === 'CANCELLED') throw error
        const code = error.code === 'DOWNLOAD_FAILED' ? 'MEDIA_FAILED' : error.code
        throw new EngineError(code, `${element}: ${error.message}`, {element, url}, {cause: error})
      }
    }
    const reason = route.kind === 'blocked' ? route.reason : 'it is not a file of the project or an http(s) URL'
    throw new EngineError('REQUEST_BLOCKED', `${element}: src "${url}" cannot be used: ${reason}`, {element, url})
  }

  /**
   * Downloads a remote URL once per render (and from the cache on later renders), refusing one
   * over `maxBytes` (a page's file 128 MB, a media source more) or over what the render may still
   * download. A failure is kept too, so that every worker's page does not wait for the same dead
   * host again; only a later request allowing a larger file tries again.
   */
  download(url: string, maxBytes: number): Promise<RemoteFile> {
    const earlier = this.downloads.get(url)
    if (earlier && earlier.maxBytes >= maxBytes) return earlier.file
    const file = fetchRemote(url, {
      network: this.options.network,
      timeoutMs: this.options.downloadTimeoutMs,
      signal: this.options.signal,
      env: this.options.env,
      maxBytes,
      allowance: this.allowance,
    })
    file.then(
      () => {
        if (!this.fetched.includes(url)) this.fetched.push(url)
      },
      () => {},
    )
    this.downloads.set(url, {maxBytes, file})
    return file
  }

  private async serveRemote(url: string): Promise<PageResponse | 'blocked'> {
    try {
      const file = await this.download(url, MAX_SERVED_BYTES)
      return await this.serveFile(url, {kind: 'file', path: file.path}, file.contentType)
    } catch (error) {
      const engineError = error instanceof EngineError ? error : undefined
      if (engineError?.code === 'REQUEST_BLOCKED') {
        this.notice('blocked-request', url, engineError.message)
        return 'blocked'
      }
      this.notice('request-failed', url, engineError?.message ?? `cannot download ${url}: ${(error as Error).message}`)
      return respond(502, 'text/plain', Buffer.from('download failed'))
    }
  }

  private async serveFile(url: string, found: Awaited<ReturnType<typeof projectFile>>, type?: string): Promise<PageResponse | 'blocked'> {
    if (found.kind === 'missing') return notFound()
    if (found.kind === 'hidden') {
      this.notice('blocked-request', url, `blocked ${url}: ${HIDDEN_REASON}`)
      return 'blocked'
    }
    if (found.kind === 'outside') {
      this.notice('blocked-request', url, `blocked ${url}: it leads outside the project ${this.options.projectDir}`)
      return 'blocked'
    }
    const {size} = await stat(found.path)
    if (size > MAX_SERVED_BYTES) {
      this.notice('request-failed', url, `${url} is ${Math.round(size / 1024 ** 2)} MB; the page may load files of up to ${MAX_SERVED_BYTES / 1024 ** 2} MB`)
      return respond(413, 'text/plain', Buffer.from('too large'))
    }
    return respond(200, type ?? contentType(found.path), await readFile(found.path))
  }

  private noteRead(urlPath: string, found: Awaited<ReturnType<typeof projectFile>>): void {
    if (found.kind === 'file') this.projectReads.set(urlPath, found.path)
    else if (found.kind === 'missing') this.projectReads.set(urlPath, null)
  }

  private notice(code: RequestNotice['code'], url: string, message: string, path?: string): void {
    if (this.reported.has(url)) return
    this.reported.add(url)
    this.options.onNotice?.({code, url, message, ...(path !== undefined && {path})})
  }
}

function respond(status: number, type: string, body: Buffer): PageResponse {
  // Any origin: the page's own files are same-origin, and a remote file the engine already
  // fetched may be read by the page like a local one.
  return {status, body, headers: [{name: 'Content-Type', value: type}, {name: 'Access-Control-Allow-Origin', value: '*'}]}
}

function notFound(): PageResponse {
  return respond(404, 'text/plain', Buffer.from('not found'))
}
