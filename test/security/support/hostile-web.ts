import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import puppeteer, {type Browser} from 'puppeteer-core'

const BROWSER = process.env.ENGINE_BROWSER_PATH ?? '/usr/bin/chromium-headless-shell'

export interface WebSite {
  server: Server
  origin: string
}

/** A web site on another loopback address that answers every path with the page `html()` gives. */
export async function servePage(host: string, html: () => string): Promise<WebSite> {
  const server = createServer((_req, res) => {
    res.writeHead(200, {'Content-Type': 'text/html; charset=utf-8'})
    res.end(html())
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  return {server, origin: `http://${host}:${(server.address() as AddressInfo).port}`}
}

/**
 * A real browser as a user's, for pages that attack local servers: `rebindHost` resolves to
 * 127.0.0.1 in it (a DNS-rebinding name). Chromium's own Local Network Access checks would block
 * some attacks; other browsers have none, so the servers must hold without that help.
 */
export function launchUserBrowser(rebindHost: string): Promise<Browser> {
  return puppeteer.launch({
    executablePath: BROWSER,
    headless: 'shell',
    args: [
      '--no-sandbox',
      `--host-resolver-rules=MAP ${rebindHost} 127.0.0.1`,
      '--disable-features=LocalNetworkAccessChecks,BlockInsecurePrivateNetworkRequests,PrivateNetworkAccessSendPreflights,PrivateNetworkAccessRespectPreflightResults',
    ],
  })
}
