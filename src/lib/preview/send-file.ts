import {createReadStream} from 'node:fs'
import {stat} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {pipeline} from 'node:stream/promises'
import {contentType} from '../sandbox/content-type.js'

/**
 * Sends a file, honouring a single `Range: bytes=a-b` (media elements seek with ranges). Returns
 * false, sending nothing, when `path` is not a readable file.
 */
export async function sendFile(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
  let size: number
  try {
    const info = await stat(path)
    if (!info.isFile()) return false
    size = info.size
  } catch {
    return false
  }
  const headers = {'Content-Type': contentType(path), 'Cache-Control': 'no-store', 'Accept-Ranges': 'bytes'}
  const range = parseRange(req.headers.range, size)
  if (range === 'unsatisfiable') {
    res.writeHead(416, {...headers, 'Content-Range': `bytes */${size}`}).end()
    return true
  }
  const {start, end} = range ?? {start: 0, end: size - 1}
  res.writeHead(range ? 206 : 200, {
    ...headers,
    'Content-Length': String(Math.max(0, end - start + 1)),
    ...(range ? {'Content-Range': `bytes ${start}-${end}/${size}`} : {}),
  })
  if (req.method === 'HEAD' || size === 0) {
    res.end()
    return true
  }
  await pipeline(createReadStream(path, {start, end}), res).catch(() => {
    // The client stopped reading (a media element seeking elsewhere): nothing to report.
  })
  return true
}

function parseRange(header: string | undefined, size: number): {start: number; end: number} | 'unsatisfiable' | undefined {
  const match = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null
  if (!match || (match[1] === '' && match[2] === '')) return undefined
  const start = match[1] === '' ? Math.max(0, size - Number(match[2])) : Number(match[1])
  const end = match[1] === '' || match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)
  return start > end || start >= size ? 'unsatisfiable' : {start, end}
}
