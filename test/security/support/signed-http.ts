import {createHash, createHmac, type Hash, type Hmac} from 'node:crypto'
import {SignatureV4} from '@smithy/signature-v4'
import {rawRequest, type RawResponse} from './raw-http.js'

/** The SDK's own signer wants a hash class; node's crypto behind that interface. */
class NodeSha256 {
  private hash: Hash | Hmac
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret))
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(bytes(data))
  }
  async digest(): Promise<Uint8Array> {
    return this.hash.digest()
  }
  reset(): void {}
}

function bytes(data: string | ArrayBuffer | ArrayBufferView): string | Uint8Array {
  if (typeof data === 'string') return data
  return ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data)
}

export interface SignedRequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string
  /** `s3` (default), `states` or `lambda`: the service the signature is scoped to. */
  service?: string
  accessKeyId?: string
}

/**
 * One request exactly as written (path not normalised, so `..` reaches the server), signed with
 * `secret` by the AWS SDK's own SigV4 signer, not the engine's: what a client holding the token
 * can send, hostile or not.
 */
export async function signedRawRequest(url: string, secret: string, options: SignedRequestOptions = {}): Promise<RawResponse> {
  const target = new URL(url)
  const service = options.service ?? 's3'
  const [path, rawQuery = ''] = url.slice(target.origin.length).split(/\?(.*)/s, 2)
  const query: Record<string, string> = {}
  for (const part of rawQuery.split('&').filter(Boolean)) {
    const [name, value = ''] = part.split(/=(.*)/s, 2)
    query[decodeURIComponent(name)] = decodeURIComponent(value)
  }
  const signer = new SignatureV4({
    service,
    region: 'us-east-1',
    credentials: {accessKeyId: options.accessKeyId ?? 'engine-local', secretAccessKey: secret},
    sha256: NodeSha256,
    uriEscapePath: service !== 's3',
  })
  const headers = {host: target.host, ...(service === 's3' && {'x-amz-content-sha256': 'UNSIGNED-PAYLOAD'}), ...options.headers}
  const signed = await signer.sign({method: options.method ?? 'GET', protocol: 'http:', hostname: target.hostname, port: Number(target.port), path, query, headers, body: options.body})
  return rawRequest(url, {method: options.method, headers: signed.headers as Record<string, string>, body: options.body})
}
