import {readFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {REPO_ROOT} from '../../support/run-cli.js'

const PLAYFAIR = join(REPO_ROOT, 'node_modules', '@fontsource', 'playfair-display')
/** The real Playfair Display 700 files and ranges, served under a family name no package has. */
export const STAND_IN_FAMILY = 'Engine Test Display'
export const STAND_IN_LATIN_700 = join(PLAYFAIR, 'files', 'playfair-display-latin-700-normal.woff2')

export interface GoogleFontsApi {
  /** `http://127.0.0.1:<port>`, for ENGINE_GOOGLE_FONTS_API. */
  url: string
  /** Paths requested so far (stylesheets with their query). */
  requests: string[]
  close(): Promise<void>
}

/**
 * The Google Fonts css2 API and its file host on loopback, answering as the real one does for a
 * woff2-capable browser: one `@font-face` per subset, each after a comment naming the subset, and
 * HTTP 400 for a family or weight it does not have. Families with hostile answers: `Engine
 * Elsewhere` (files on another host, `elsewhere`), `Engine Not Woff` (a text file) and `Engine
 * Huge` (6 MiB).
 */
export async function startGoogleFontsApi(elsewhere: string): Promise<GoogleFontsApi> {
  const unicode = JSON.parse(await readFile(join(PLAYFAIR, 'unicode.json'), 'utf8')) as Record<string, string>
  const requests: string[] = []
  const server: Server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://stand-in')
    requests.push(url.pathname + url.search)
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    void answer(url, origin).then(
      ({status, type, body}) => response.writeHead(status, {'content-type': type}).end(body),
      () => response.writeHead(500).end(),
    )
  })

  async function answer(url: URL, origin: string): Promise<{status: number; type: string; body: Buffer | string}> {
    if (url.pathname.startsWith('/s/')) {
      const name = url.pathname.slice(3)
      if (name === 'not-a-font.woff2') return {status: 200, type: 'font/woff2', body: 'this is not a font'}
      if (name === 'huge.woff2') return {status: 200, type: 'font/woff2', body: Buffer.concat([Buffer.from('wOF2'), Buffer.alloc(6 * 1024 * 1024)])}
      return {status: 200, type: 'font/woff2', body: await readFile(join(PLAYFAIR, 'files', name))}
    }
    const spec = /^([^:]+):ital,wght@(.+)$/.exec(url.searchParams.get('family') ?? '')
    if (url.pathname !== '/css2' || !spec) return {status: 400, type: 'text/plain', body: 'bad request'}
    const family = spec[1].replaceAll('+', ' ')
    const tuples = spec[2].split(';').map((tuple) => tuple.split(',').map(Number))
    const file = (subset: string) =>
      family === STAND_IN_FAMILY
        ? `${origin}/s/playfair-display-${subset}-700-normal.woff2`
        : family === 'Engine Elsewhere'
          ? `${elsewhere}/s/playfair-display-${subset}-700-normal.woff2`
          : family === 'Engine Not Woff'
            ? `${origin}/s/not-a-font.woff2`
            : `${origin}/s/huge.woff2`
    // Each of these families has only 700 upright; anything else makes the whole stylesheet a 400.
    if (!['Engine Test Display', 'Engine Elsewhere', 'Engine Not Woff', 'Engine Huge'].includes(family) || tuples.some(([ital, weight]) => ital !== 0 || weight !== 700)) {
      return {status: 400, type: 'text/html', body: 'Bad Request'}
    }
    const css = ['vietnamese', 'latin-ext', 'latin']
      .map((subset) => `/* ${subset} */\n@font-face {\n  font-family: '${family}';\n  font-style: normal;\n  font-weight: 700;\n  font-display: block;\n  src: url(${file(subset)}) format('woff2');\n  unicode-range: ${unicode[subset]};\n}\n`)
      .join('')
    return {status: 200, type: 'text/css; charset=utf-8', body: css}
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
