import type {IncomingMessage, ServerResponse} from 'node:http'
import {LOCAL_ACCESS_KEY_ID, LOCAL_TOKEN_ENV} from '../aws-clients.js'
import {normalizeHostName, parseHostHeader} from 'html-video-engine/internal/lib/server/check-host.js'
import {readBody, sendJson} from './http-body.js'
import {isLambdaRequest, MAX_PAYLOAD_BYTES} from './lambda-invoke-api.js'
import {isSfnRequest} from './sfn-json-api.js'
import {peekBody} from './peek-body.js'
import {signatureProblem} from './verify-signature.js'
import {sha256Hex} from '../sigv4.js'

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
  return payloadHashRefusal(request, body)
}

/** Most bytes of an S3 body whose signed hash is checked before it is stored (what a single engine PUT sends at most). */
export const MAX_HASHED_BODY_BYTES = 64 * 1024 * 1024

/**
 * The signature covers the body only through the hash the client put in x-amz-content-sha256; a
 * request replayed with another body keeps that header. So a body whose hash is claimed is read
 * first, hashed and compared (AWS answers XAmzContentSHA256Mismatch), and only then handed on.
 * `UNSIGNED-PAYLOAD` (engine's own streamed uploads, as AWS accepts it) is not hashed. The JSON
 * APIs' bodies, already read for their signature, are compared as they are.
 */
async function payloadHashRefusal(request: IncomingMessage, alreadyRead: Buffer | undefined): Promise<Refusal | undefined> {
  const claimed = request.headers['x-amz-content-sha256']
  if (typeof claimed !== 'string' || !/^[0-9a-f]{64}$/i.test(claimed)) return undefined
  const peeked = alreadyRead ? {body: alreadyRead} : await peekBody(request, MAX_HASHED_BODY_BYTES)
  if ('problem' in peeked) {
    const why = {'too-large': `is larger than ${MAX_HASHED_BODY_BYTES} bytes; send it in parts (multipart upload) or as UNSIGNED-PAYLOAD`, 'no-length': 'has no Content-Length', short: 'is shorter than its Content-Length'}[peeked.problem]
    return {status: 400, code: peeked.problem === 'too-large' ? 'EntityTooLarge' : 'IncompleteBody', message: `the local stack checks the body of a request against its signed x-amz-content-sha256, and this body ${why}`}
  }
  if (sha256Hex(peeked.body) === claimed.toLowerCase()) return undefined
  return {status: 400, code: 'XAmzContentSHA256Mismatch', message: "the body's SHA-256 does not match the x-amz-content-sha256 the request was signed with"}
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
