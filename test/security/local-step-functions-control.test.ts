import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {CreateStateMachineCommand, DeleteStateMachineCommand, DescribeStateMachineCommand, SFNClient, StartExecutionCommand} from '@aws-sdk/client-sfn'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {LocalFunction} from '../../packages/lambda/src/lib/lambda/local/local-function.js'
import {LocalStepFunctions} from '../../packages/lambda/src/lib/lambda/local/local-step-functions.js'
import {handleSfnRequest} from '../../packages/lambda/src/lib/lambda/local/sfn-json-api.js'

const PREFIX = 'arn:aws:states:us-east-1:000000000000'
const RENDER_ARN = `${PREFIX}:stateMachine:engine-render`
const PASS = JSON.stringify({StartAt: 'Done', States: {Done: {Type: 'Pass', End: true}}})

/**
 * The local Step Functions' control operations (what deploy and destroy send): hostile names and
 * definitions are refused with AWS's error types, never an internal error, and no workflow of the
 * stack is replaced under its name by another definition.
 */
describe('local Step Functions: CreateStateMachine and DeleteStateMachine refuse what AWS refuses', () => {
  let server: Server
  let api: LocalStepFunctions
  let sfn: SFNClient
  beforeAll(async () => {
    api = new LocalStepFunctions({machines: [{arn: RENDER_ARN, definition: JSON.parse(PASS)}], function: new LocalFunction(1, async () => ({}))})
    server = createServer((request, response) => void handleSfnRequest(api, request, response))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    sfn = new SFNClient({endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'us-east-1', credentials: {accessKeyId: 'x', secretAccessKey: 'y'}})
  })
  afterAll(async () => {
    await api?.close()
    await new Promise((resolve) => server?.close(resolve))
  })
  const failure = (promise: Promise<unknown>) => promise.then(() => 'accepted', (error: Error) => error.name)

  it('names with path or ARN characters, definitions that are not JSON or not runnable: refused by type, nothing created', async () => {
    for (const name of ['../engine-render', 'a:b', 'a/b', '', 'x'.repeat(81)]) {
      expect(await failure(sfn.send(new CreateStateMachineCommand({name, definition: PASS, roleArn: 'arn:aws:iam::000000000000:role/r'}))), name).toBe('InvalidName')
    }
    for (const definition of ['not json', '{"StartAt": "Missing", "States": {}}', '{"__proto__": {"polluted": 1}, "StartAt": "A", "States": {"A": {"Type": "Nope"}}}']) {
      expect(await failure(sfn.send(new CreateStateMachineCommand({name: 'other', definition, roleArn: 'arn:aws:iam::000000000000:role/r'}))), definition).toBe('InvalidDefinition')
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(await failure(sfn.send(new DescribeStateMachineCommand({stateMachineArn: `${PREFIX}:stateMachine:other`})))).toBe('StateMachineDoesNotExist')
  })

  it('the stack\'s workflow is not replaced by a create under its name; delete of an unknown one is refused; a deleted one starts nothing', async () => {
    const other = JSON.stringify({StartAt: 'Other', States: {Other: {Type: 'Pass', End: true}}})
    expect(await failure(sfn.send(new CreateStateMachineCommand({name: 'engine-render', definition: other, roleArn: 'arn:aws:iam::000000000000:role/r'})))).toBe('StateMachineAlreadyExists')
    expect(JSON.parse((await sfn.send(new DescribeStateMachineCommand({stateMachineArn: RENDER_ARN}))).definition!)).toEqual(JSON.parse(PASS))
    expect(await failure(sfn.send(new DeleteStateMachineCommand({stateMachineArn: `${PREFIX}:stateMachine:nothing`})))).toBe('StateMachineDoesNotExist')
    await sfn.send(new DeleteStateMachineCommand({stateMachineArn: RENDER_ARN}))
    expect(await failure(sfn.send(new StartExecutionCommand({stateMachineArn: RENDER_ARN, input: '{}'})))).toBe('StateMachineDoesNotExist')
    // Created again with the same definition (what deploy sends after destroy), it runs.
    expect((await sfn.send(new CreateStateMachineCommand({name: 'engine-render', definition: PASS, roleArn: 'arn:aws:iam::000000000000:role/r'}))).stateMachineArn).toBe(RENDER_ARN)
    expect(await failure(sfn.send(new StartExecutionCommand({stateMachineArn: RENDER_ARN, input: '{}'})))).toBe('accepted')
  })
})
