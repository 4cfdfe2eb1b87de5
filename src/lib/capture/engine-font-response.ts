import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {Protocol} from 'puppeteer-core'
import {fontCacheDirectory} from '../fonts/font-cache-dir.js'
import {engineAssetUrl} from '../sandbox/page-origin.js'

/** Request pattern of the font files the engine serves the page (`engineAssetUrl('fonts', …)`). */
export const ENGINE_FONTS_PATTERN = `${engineAssetUrl('fonts', '')}*`

export function isEngineFontUrl(url: string): boolean {
  return url.startsWith(engineAssetUrl('fonts', ''))
}

const FONT_NAME = /^[0-9a-f]{64}\.(woff2|woff|ttf|otf)$/

/**
 * The answer to a request for an engine font file: the file of the font cache with that content
 * address, or 404. The page (still loaded from file://) fetches fonts cross-origin, so the
 * response allows any origin; only content-addressed names are served.
 */
export async function engineFontResponse(url: string): Promise<Omit<Protocol.Fetch.FulfillRequestRequest, 'requestId'>> {
  const name = decodeURIComponent(url.slice(engineAssetUrl('fonts', '').length).split(/[?#]/)[0])
  const match = FONT_NAME.exec(name)
  const bytes = match ? await readFile(join(fontCacheDirectory(), name)).catch(() => undefined) : undefined
  if (!match || !bytes) return {responseCode: 404, responseHeaders: [{name: 'Access-Control-Allow-Origin', value: '*'}], body: ''}
  return {
    responseCode: 200,
    responseHeaders: [
      {name: 'Content-Type', value: `font/${match[1]}`},
      {name: 'Access-Control-Allow-Origin', value: '*'},
    ],
    body: bytes.toString('base64'),
  }
}
