import type {IncomingMessage, ServerResponse} from 'node:http'
import {readBody, sendJson} from './http-body.js'
import type {LocalStepFunctions} from './local-step-functions.js'
import {SfnApiError} from './sfn-api-error.js'

const TARGET_PREFIX = 'AWSStepFunctions.'
const CONTENT_TYPE = 'application/x-amz-json-1.0'
/** Bodies are execution inputs at most; anything far larger is not a Step Functions request. */
const MAX_BODY_BYTES = 4 * 1024 * 1024

/** Step Functions requests are JSON posts naming the operation in `X-Amz-Target`; S3 requests never do. */
export function isSfnRequest(request: IncomingMessage): boolean {
  return String(request.headers['x-amz-target'] ?? '').startsWith(TARGET_PREFIX)
}

type Body = Record<string, never>

/** The operations the stack uses, by their name in `X-Amz-Target`. */
const OPERATIONS: Record<string, (api: LocalStepFunctions, body: Body) => unknown> = {
  StartExecution: (api, body) => api.startExecution(body),
  DescribeExecution: (api, body) => api.describeExecution(body),
  GetExecutionHistory: (api, body) => api.getExecutionHistory(body),
  StopExecution: (api, body) => api.stopExecution(body),
  ListExecutions: (api, body) => api.listExecutions(body),
  ListMapRuns: (api, body) => api.listMapRuns(body),
  DescribeMapRun: (api, body) => api.describeMapRun(body),
  // What deploy, `lambda destroy` and `lambda functions ls` send.
  DescribeStateMachine: (api, body) => api.machines.describe(body),
  CreateStateMachine: (api, body) => api.machines.create(body),
  UpdateStateMachine: (api, body) => api.machines.update(body),
  DeleteStateMachine: (api, body) => api.machines.delete(body),
  DescribeStateMachineForExecution: (api, body) => api.describeStateMachineForExecution(body),
}

/** Serves the operations the stack uses, in the AWS JSON 1.0 protocol the SDK speaks. */
export async function handleSfnRequest(api: LocalStepFunctions, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const operation = String(request.headers['x-amz-target']).slice(TARGET_PREFIX.length)
  try {
    const body = (await readJson(request)) as Body
    const serve = OPERATIONS[operation]
    if (!serve) throw new SfnApiError('UnknownOperationException', `the local stack does not implement ${operation}`)
    const result = serve(api, body)
    send(response, 200, result)
  } catch (error) {
    const type = error instanceof SfnApiError ? error.type : 'InternalFailure'
    send(response, error instanceof SfnApiError ? 400 : 500, {__type: type, message: (error as Error).message}, type)
  }
}

function send(response: ServerResponse, status: number, body: unknown, errorType?: string): void {
  sendJson(response, status, body, {'content-type': CONTENT_TYPE, ...(errorType && {'x-amzn-errortype': errorType})})
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const body = await readBody(request, MAX_BODY_BYTES)
  if (!body) throw new SfnApiError('ValidationException', 'request body too large')
  const text = body.toString('utf8')
  try {
    return text ? JSON.parse(text) : {}
  } catch {
    throw new SfnApiError('SerializationException', 'request body is not JSON')
  }
}
