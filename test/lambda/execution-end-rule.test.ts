import {setTimeout as sleep} from 'node:timers/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {AWS_ENDPOINT_ENV, LOCAL_TOKEN_ENV} from '../../packages/lambda/src/lib/lambda/aws-clients.js'
import {deploySite} from '../../packages/lambda/src/lib/lambda/deploy-site.js'
import {ExecutionEndEvents} from '../../packages/lambda/src/lib/lambda/local/execution-end-events.js'
import {LocalFunction} from '../../packages/lambda/src/lib/lambda/local/local-function.js'
import {LocalStepFunctions} from '../../packages/lambda/src/lib/lambda/local/local-step-functions.js'
import {handler} from '../../packages/lambda/src/lib/lambda/handler.js'
import {FunctionError} from '../../packages/lambda/src/lib/lambda/local/child-answer.js'
import type {RenderFailureRecord} from '../../packages/lambda/src/lib/lambda/render-records.js'
import {renderInput} from '../../packages/lambda/src/lib/lambda/render-to-lambda.js'
import {storeRenderWebhook} from '../../packages/lambda/src/lib/lambda/render-webhook.js'
import {executionEndPattern, executionEndTarget, type ExecutionStatusDetail} from '../../packages/lambda/src/lib/lambda/runtime/execution-end-rule.js'
import {readInvocations} from '../../packages/lambda/src/lib/lambda/runtime/invocation-records.js'
import {renderStateMachineDefinition} from '../../packages/lambda/src/lib/lambda/state-machine-definition.js'
import {startReceiver} from '../notify/receiver.js'
import {LAMBDA_FIXTURES, type RunningStack} from './support.js'
import {QUICK_STOP, sharedStack} from '../support/shared-stack.js'
import {until} from '../support/until.js'

const MACHINE = 'arn:aws:states:us-east-1:000000000000:stateMachine:engine-render'
const FUNCTION_ARN = 'arn:aws:lambda:us-east-1:000000000000:function:engine-render'

const detail = (changes: Partial<ExecutionStatusDetail> = {}): ExecutionStatusDetail => ({
  executionArn: `${MACHINE.replace(':stateMachine:', ':execution:')}:r1`,
  stateMachineArn: MACHINE,
  name: 'r1',
  status: 'TIMED_OUT',
  input: JSON.stringify({renderId: 'r1', bucketName: 'renders', note: 'quotes " and <brackets> survive'}),
  error: null,
  cause: null,
  ...changes,
})

describe('the execution-end rule', () => {
  it('matches the render workflow ending FAILED, TIMED_OUT or ABORTED, nothing else', () => {
    expect(executionEndPattern(MACHINE)).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {status: ['FAILED', 'TIMED_OUT', 'ABORTED'], stateMachineArn: [MACHINE]},
    })
    for (const status of ['FAILED', 'TIMED_OUT', 'ABORTED']) expect(executionEndTarget(MACHINE, detail({status}))?.status).toBe(status)
    expect(executionEndTarget(MACHINE, detail({status: 'SUCCEEDED'}))).toBeUndefined()
    expect(executionEndTarget(MACHINE, detail({status: 'RUNNING'}))).toBeUndefined()
    expect(executionEndTarget(MACHINE, detail({stateMachineArn: `${MACHINE}-batch`}))).toBeUndefined()
  })

  it('hands the function an executionEnded event through the input transformer, JSON values intact', () => {
    const event = executionEndTarget(MACHINE, detail({status: 'ABORTED', error: 'Engine.CANCELLED', cause: '{"code":"CANCELLED"}'}))
    expect(event).toEqual({
      action: 'executionEnded',
      executionArn: detail().executionArn,
      status: 'ABORTED',
      renderId: 'r1',
      input: detail().input,
      error: 'Engine.CANCELLED',
      cause: '{"code":"CANCELLED"}',
    })
  })
})

describe('an execution ended by the workflow timeout (local stack, real handler)', {timeout: 180_000}, () => {
  let stack: RunningStack
  let stepFunctions: LocalStepFunctions
  let endEvents: ExecutionEndEvents

  beforeAll(async () => {
    // Only the stack's S3 is used (the workflow runs here): the run's shared stack, a bucket of this file's own.
    stack = await sharedStack()
    // The real handler, in this process (the stack's own children run the built one).
    process.env[AWS_ENDPOINT_ENV] = stack.env.ENGINE_AWS_ENDPOINT
    process.env[LOCAL_TOKEN_ENV] = stack.env.ENGINE_LOCAL_TOKEN
    // The handler runs in this process: its chunks look for the stop marker as the suite's stacks' do.
    Object.assign(process.env, QUICK_STOP)
    const fn = new LocalFunction(8, (event) =>
      handler(event).catch((error: Error) => {
        throw new FunctionError(error.name, error.message)
      }),
    )
    endEvents = new ExecutionEndEvents(MACHINE, fn)
    // The deployed definition with a workflow timeout of a few seconds: the render outlives it.
    const definition = {...renderStateMachineDefinition(FUNCTION_ARN), TimeoutSeconds: 4}
    stepFunctions = new LocalStepFunctions({machines: [{arn: MACHINE, definition}], function: fn, onExecutionEnded: (ended) => endEvents.deliver(ended)})
  })
  afterAll(async () => {
    await stepFunctions?.close()
    await endEvents?.close()
    await stack?.stop()
  })

  it('TIMED_OUT runs no Catch, yet the rule writes the failure record, calls the webhook with TIMED_OUT and leaves no scratch', async () => {
    const receiver = await startReceiver('timeout-secret')
    try {
      const site = await deploySite({projectDir: join(LAMBDA_FIXTURES, 'slow'), bucketName: stack.env.ENGINE_BUCKET, endpoint: stack.env.ENGINE_AWS_ENDPOINT})
      const input = renderInput({siteHandle: site, bucketName: stack.env.ENGINE_BUCKET, config: {chunkSize: 240, concurrencyPerChunk: 1, keyframeInterval: 0.5, variables: {work: 20_000_000}}})
      await storeRenderWebhook(stack.bucket, input.renderId, {url: receiver.url, secret: 'timeout-secret'})
      const {executionArn} = stepFunctions.startExecution({stateMachineArn: MACHINE, name: input.renderId, input: JSON.stringify(input)})
      for (let tries = 0; tries < 300 && stepFunctions.describeExecution({executionArn}).status === 'RUNNING'; tries++) await sleep(100)
      expect(stepFunctions.describeExecution({executionArn}).status).toBe('TIMED_OUT')

      const [call] = await receiver.waitForCalls(1)
      expect(call).toMatchObject({type: 'render.failed', signatureValid: true})
      expect(call.body).toMatchObject({id: input.renderId, status: 'failed', error: {code: 'TIMED_OUT'}})
      const failure = await stack.bucket.getJson<RenderFailureRecord>(`renders/${input.renderId}/failure.json`)
      expect(failure).toMatchObject({renderId: input.renderId, code: 'TIMED_OUT', error: 'States.Timeout', message: expect.stringMatching(/execution timeout/)})
      expect(await stack.bucket.getJson(`renders/${input.renderId}/stop.json`)).toMatchObject({reason: 'timed-out'})

      // Chunks that were running at the timeout stop and remove what they stored.
      for (let tries = 0; tries < 120; tries++) {
        const chunks = (await readInvocations(stack.bucket, input.renderId)).filter((record) => record.action === 'renderChunk')
        if (chunks.length > 0 && chunks.every((record) => record.outcome === 'stopped')) break
        await sleep(250)
      }
      const scratch = () => stack.bucket.listKeys(`scratch/${input.renderId}/`)
      await until(async () => (await scratch()).length === 0, 30_000, 250)
      expect(await scratch()).toEqual([])
      // The rule calls the webhook once: a second call would come with the sweep, which has run.
      expect(receiver.calls).toHaveLength(1)
    } finally {
      await receiver.close()
    }
  })
})
