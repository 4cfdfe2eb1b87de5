import {request} from 'node:http'

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/**
 * One HTTP request with exactly the headers given, Host included (fetch would not let a test set
 * Host, and browsers add their own): what an attacker's client can send.
 */
export function rawRequest(url: string, options: {method?: string; headers?: Record<string, string>; body?: string} = {}): Promise<RawResponse> {
  const target = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        // As written: URL parsing would fold "../" segments away before they are sent.
        path: url.slice(target.origin.length) || '/',
        method: options.method ?? 'GET',
        headers: {...(options.body === undefined ? {} : {'Content-Length': String(Buffer.byteLength(options.body))}), ...options.headers},
        setHost: !Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'host'),
        timeout: 30_000,
      },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (body += chunk))
        res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, body}))
      },
    )
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} in 30 s`)))
    req.on('error', reject)
    req.end(options.body)
  })
}

/** The error code of a JSON error body, or the raw body when it is not one. */
export function errorCode(response: RawResponse): string {
  try {
    return (JSON.parse(response.body) as {error: {code: string}}).error.code
  } catch {
    return response.body
  }
}
