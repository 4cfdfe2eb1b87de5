import {stat} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {basename, dirname} from 'node:path'
import send from 'send'
import {contentType} from '../sandbox/content-type.js'

export interface SendFileOptions {
  /** Default `no-cache`: the client may keep the file but asks again, and gets a 304 while it is unchanged. */
  cacheControl?: string
  /** Sent as `Content-Disposition: attachment` under this name (a download, not a page). */
  downloadName?: string
  /** The media type when the caller knows it (a plugin format's); else taken from the file's extension. */
  contentType?: string
}

/**
 * The one way `engine serve` and `engine preview` send a file: the `send` library answers HEAD,
 * a `Range` (media elements seek with ranges; `If-Range` honoured), `ETag` / `Last-Modified`
 * with their conditional requests (304, 412). Callers choose the path and have checked it may be
 * served. Returns false, sending nothing, when `path` is not a regular file.
 */
export async function sendFile(req: IncomingMessage, res: ServerResponse, path: string, options: SendFileOptions = {}): Promise<boolean> {
  const info = await stat(path).catch(() => undefined)
  if (!info?.isFile()) return false
  // send takes a URL path (it percent-decodes it): the file's own name, encoded, under its folder as the root.
  // The caller vetted the path, dot-folders (the temporary directory's) included; send must not re-judge it.
  const stream = send(req, `/${encodeURIComponent(basename(path))}`, {
    root: dirname(path),
    dotfiles: 'allow',
    index: false,
    cacheControl: false,
    etag: true,
    lastModified: true,
    acceptRanges: true,
  })
  stream.on('headers', (response: ServerResponse) => {
    response.setHeader('Content-Type', options.contentType ?? contentType(path))
    response.setHeader('Cache-Control', options.cacheControl ?? 'no-cache')
    if (options.downloadName !== undefined) {
      response.setHeader('Content-Disposition', `attachment; filename="${options.downloadName.replace(/["\\\r\n]/g, '_')}"`)
    }
  })
  await new Promise<void>((resolve, reject) => {
    res.once('close', () => resolve())
    stream.on('error', (error: Error & {status?: number; headers?: Record<string, string>}) => {
      // A range past the end (416) or a failed If-Match (412) is the client's answer, not a fault.
      if (!res.headersSent && (error.status === 416 || error.status === 412)) res.writeHead(error.status, error.headers ?? {}).end()
      else if (res.headersSent) res.destroy()
      else reject(error)
    })
    stream.pipe(res)
  })
  return true
}
