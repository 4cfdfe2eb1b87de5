import type {IncomingMessage, ServerResponse} from 'node:http'
import {readBody, sendJson} from './http-body.js'
import {FunctionError} from './child-answer.js'
import type {LocalFunction} from './local-function.js'

const INVOKE_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/
/** What `engine lambda quotas` reads: the account's settings, the function's configuration and its concurrency. */
const READ_PATHS = {
  account: /^\/2016-08-19\/account-settings\/?$/,
  configuration: /^\/2015-03-31\/functions\/([^/]+)\/configuration\/?$/,
  concurrency: /^\/2019-09-30\/functions\/([^/]+)\/concurrency\/?$/,
}
/** Lambda's limit on a synchronous invocation's request and response payloads. */
export const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024
const THROTTLED = 'Lambda.TooManyRequestsException'

/** Lambda's Invoke (posted to /2015-03-31/functions/…/invocations) and the reads of `lambda quotas`. */
export function isLambdaRequest(request: IncomingMessage): boolean {
  const path = new URL(request.url ?? '/', 'http://local').pathname
  if (request.method === 'POST') return INVOKE_PATH.test(path)
  return request.method === 'GET' && Object.values(READ_PATHS).some((pattern) => pattern.test(path))
}

/**
 * Lambda's API for the local stack's one function, with AWS's answers. Invoke (REST-JSON,
 * RequestResponse only, any qualifier: the local stack runs one code): the function's result; a
 * function error as 200 with X-Amz-Function-Error and the error's type and message; 429 when the
 * concurrency is taken; 404 for another function name. The reads `lambda quotas` makes: the
 * account is this machine, whose whole concurrency the function reserves.
 */
export class LocalLambdaApi {
  constructor(
    private readonly functionName: string,
    private readonly renderFunction: LocalFunction,
    private readonly memoryMb: number,
  ) {}

  async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://local')
    const concurrency = this.renderFunction.concurrency
    if (READ_PATHS.account.test(url.pathname)) {
      return send(response, 200, {AccountLimit: {ConcurrentExecutions: concurrency, UnreservedConcurrentExecutions: 0}, AccountUsage: {FunctionCount: 1}})
    }
    const named = decodeURIComponent((INVOKE_PATH.exec(url.pathname) ?? READ_PATHS.configuration.exec(url.pathname) ?? READ_PATHS.concurrency.exec(url.pathname))![1])
    if (functionNameOf(named) !== this.functionName) {
      return send(response, 404, {Type: 'User', message: `Function not found: ${named}`}, 'ResourceNotFoundException')
    }
    if (READ_PATHS.configuration.test(url.pathname)) {
      return send(response, 200, {FunctionName: this.functionName, MemorySize: this.memoryMb, Timeout: 900, Architectures: [process.arch === 'arm64' ? 'arm64' : 'x86_64'], Version: '$LATEST'})
    }
    if (READ_PATHS.concurrency.test(url.pathname)) return send(response, 200, {ReservedConcurrentExecutions: concurrency})
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

/** The function a FunctionName names: a name or an ARN, either with a qualifier (`:live`, `:3`) or without. */
function functionNameOf(named: string): string {
  const arn = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:([^:]+)(:[^:]+)?$/.exec(named)
  return arn ? arn[1] : named.split(':')[0]
}

function send(response: ServerResponse, status: number, body: unknown, errorType?: string, headers: Record<string, string> = {}): void {
  sendJson(response, status, body, {
    'content-type': 'application/json',
    'x-amz-executed-version': '$LATEST',
    ...(errorType && {'x-amzn-errortype': errorType}),
    ...headers,
  })
}
