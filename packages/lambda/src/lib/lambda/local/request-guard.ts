import type {IncomingMessage, ServerResponse} from 'node:http'
import {LOCAL_ACCESS_KEY_ID, LOCAL_TOKEN_ENV} from '../aws-clients.js'
import {normalizeHostName, parseHostHeader} from 'html-video-engine/internal/lib/server/check-host.js'
import {readBody, sendJson} from './http-body.js'
import {isLambdaRequest, MAX_PAYLOAD_BYTES} from './lambda-invoke-api.js'
import {isSfnRequest} from './sfn-json-api.js'
import {signatureProblem} from './verify-signature.js'

export interface Refusal {
  status: number
  /** The AWS error code the SDK turns into the error's name. */
  code: string
  message: string
}

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1'])

/**
 * Why the local stack must not answer a request, or undefined. Every web page the user opens can
 * reach a loopback port, so, in this order: the Host must name the stack's own loopback address
 * (a page whose host name was re-pointed here sends its own name); a request carrying a browser's
 * Origin, or labelled cross-site by the browser, is refused; and the request must be signed
 * (SigV4, header or presigned URL) with the stack's token, which only the clients given the
 * printed lines hold. The body of a JSON request is read here to check its signature.
 */
export async function refusalOf(request: IncomingMessage, port: number, token: string): Promise<Refusal | undefined> {
  const host = parseHostHeader(request.headers.host ?? '')
  if (!host || host.port !== port || !LOOPBACK_NAMES.has(normalizeHostName(host.name))) {
    return {
      status: 421,
      code: 'MisdirectedRequest',
      message: `the local stack answers only requests addressed to 127.0.0.1:${port} or localhost:${port}, not Host "${request.headers.host ?? ''}"`,
    }
  }
  const site = request.headers['sec-fetch-site']
  if (request.headers.origin !== undefined || (site !== undefined && site !== 'none' && site !== 'same-origin')) {
    return {status: 403, code: 'AccessDenied', message: 'the local stack refuses requests from web pages (this one carries a browser Origin)'}
  }
  const json = isSfnRequest(request) || isLambdaRequest(request)
  const body = json ? await readBody(request, MAX_PAYLOAD_BYTES) : undefined
  if (json && body === undefined) {
    return {status: 413, code: 'RequestTooLargeException', message: `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`}
  }
  const problem = signatureProblem({method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body}, {accessKeyId: LOCAL_ACCESS_KEY_ID, secretAccessKey: token})
  if (problem) {
    return {
      status: 403,
      code: 'AccessDenied',
      message:
        `the local stack refuses this request: ${problem}. Requests must be signed with the token \`engine lambda local\` printed: ` +
        `export its ${LOCAL_TOKEN_ENV}=… line (engine and its SDK use it), or give other AWS tools AWS_ACCESS_KEY_ID=${LOCAL_ACCESS_KEY_ID} and AWS_SECRET_ACCESS_KEY=<that token>`,
    }
  }
  return undefined
}

/** Answers a refusal in the protocol the request speaks: S3's XML, or the JSON of Step Functions and Lambda. */
export function sendRefusal(request: IncomingMessage, response: ServerResponse, refusal: Refusal): void {
  request.resume()
  if (isSfnRequest(request) || isLambdaRequest(request)) {
    sendJson(response, refusal.status, {__type: refusal.code, message: refusal.message}, {'content-type': 'application/json', 'x-amzn-errortype': refusal.code})
    return
  }
  const escape = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`)
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${refusal.code}</Code><Message>${escape(refusal.message)}</Message></Error>`
  response.writeHead(refusal.status, {'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(body)})
  response.end(request.method === 'HEAD' ? undefined : body)
}
