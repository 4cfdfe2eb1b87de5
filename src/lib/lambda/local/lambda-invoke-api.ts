import type {IncomingMessage, ServerResponse} from 'node:http'
import {readBody, sendJson} from './http-body.js'
import {FunctionError} from './child-answer.js'
import type {LocalFunction} from './local-function.js'

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/
/** Lambda's limit on a synchronous invocation's request and response payloads. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024
const THROTTLED = 'Lambda.TooManyRequestsException'

/** Lambda's Invoke is the one request of the local stack posted to /2015-03-31/functions/…/invocations. */
export function isLambdaInvokeRequest(request: IncomingMessage): boolean {
  return request.method === 'POST' && INVOKE_PATH.test(new URL(request.url ?? '/', 'http://local').pathname)
}

/**
 * Lambda's Invoke API (REST-JSON, RequestResponse only) for the local stack's one function, with
 * AWS's answers: the function's result; a function error as 200 with X-Amz-Function-Error and the
 * error's type and message; 429 when the concurrency is taken; 404 for another function name.
 */
export class LocalLambdaApi {
  constructor(
    private readonly functionName: string,
    private readonly renderFunction: LocalFunction,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local')
    const named = decodeURIComponent(INVOKE_PATH.exec(url.pathname)![1])
    if (named !== this.functionName && !named.endsWith(`:function:${this.functionName}`)) {
      return send(response, 404, {Type: 'User', message: `Function not found: ${named}`}, 'ResourceNotFoundException')
    }
    const invocationType = String(request.headers['x-amz-invocation-type'] ?? 'RequestResponse')
    if (invocationType !== 'RequestResponse') {
      return send(response, 400, {Type: 'User', message: `the local stack runs RequestResponse invocations only, not ${invocationType}`}, 'InvalidParameterValueException')
    }
    const payload = await readBody(request, MAX_PAYLOAD_BYTES)
    if (payload === undefined) return send(response, 413, {Type: 'User', message: `Request must be smaller than ${MAX_PAYLOAD_BYTES} bytes for the InvokeFunction operation`}, 'RequestTooLargeException')
    let event: unknown
    try {
      event = payload.length === 0 ? {} : JSON.parse(payload.toString('utf8'))
    } catch {
      return send(response, 400, {Type: 'User', message: 'Could not parse request body into json'}, 'InvalidRequestContentException')
    }
    try {
      const result = await this.renderFunction.invoke(event)
      send(response, 200, result ?? null)
    } catch (error) {
      if (error instanceof FunctionError && error.name === THROTTLED) {
        return send(response, 429, {Reason: 'ReservedFunctionConcurrentInvocationLimitExceeded', Type: 'User', message: 'Rate Exceeded.'}, 'TooManyRequestsException')
      }
      // FunctionError's message is already Lambda's {errorType, errorMessage} payload.
      const body = error instanceof FunctionError ? JSON.parse(error.message) : {errorType: (error as Error).name, errorMessage: (error as Error).message}
      send(response, 200, body, undefined, {'x-amz-function-error': 'Unhandled'})
    }
  }
}

function send(response: ServerResponse, status: number, body: unknown, errorType?: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, body, {
    'content-type': 'application/json',
    'x-amz-executed-version': '$LATEST',
    ...(errorType && {'x-amzn-errortype': errorType}),
    ...headers,
  })
}
