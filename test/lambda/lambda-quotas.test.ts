import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'

/**
 * The Lambda API answers of an account (the AWS cloud cannot run here): a stand-in server on
 * loopback speaking the REST routes the real SDK client calls, with one deployed function.
 */
function lambdaApi(functions: Record<string, {memory: number; timeout: number; reserved?: number}>): Server {
  return createServer((request, response) => {
    const json = (status: number, body: unknown, errorType?: string) => {
      response.writeHead(status, {'Content-Type': 'application/json', ...(errorType && {'x-amzn-errortype': errorType})})
      response.end(JSON.stringify(body))
    }
    const url = request.url ?? ''
    if (url.startsWith('/2016-08-19/account-settings')) return json(200, {AccountLimit: {ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 900}, AccountUsage: {FunctionCount: 1}})
    const match = /^\/(2015-03-31|2019-09-30)\/functions\/([^/]+)\/(configuration|concurrency)/.exec(url)
    const fn = match && functions[decodeURIComponent(match[2])]
    if (!match || !fn) return json(404, {Type: 'User', Message: 'Function not found'}, 'ResourceNotFoundException')
    if (match[3] === 'configuration') return json(200, {FunctionName: match[2], MemorySize: fn.memory, Timeout: fn.timeout})
    return json(200, fn.reserved === undefined ? {} : {ReservedConcurrentExecutions: fn.reserved})
  })
}

describe('engine lambda quotas', () => {
  let server: Server
  let endpoint: string

  beforeAll(async () => {
    server = lambdaApi({'engine-render': {memory: 10240, timeout: 900, reserved: 40}, 'shared-pool': {memory: 3008, timeout: 600}})
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(() => server?.close())

  it('shows the account, the function and how many chunks can run at once', async () => {
    const text = await runCli(['lambda', 'quotas', '--endpoint', endpoint])
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toContain('1000 concurrent executions in the account, 900 unreserved')
    expect(text.stdout).toContain('Function engine-render: reserved concurrency 40, 10240 MB, timeout 900 s')
    expect(text.stdout).toContain('Chunks that can run at once: 40')

    const shared = JSON.parse((await runCli(['lambda', 'quotas', '--endpoint', endpoint, '--name', 'shared-pool', '--json'])).stdout)
    expect(shared).toMatchObject({accountConcurrency: 1000, unreservedConcurrency: 900, function: {name: 'shared-pool', deployed: true, memoryMb: 3008}, parallelChunks: 900})
    expect(shared.function.reservedConcurrency).toBeUndefined()

    const missing = await runCli(['lambda', 'quotas', '--endpoint', endpoint, '--name', 'not-here'])
    expect(missing.code, missing.stderr).toBe(0)
    expect(missing.stdout).toContain('Function not-here: not deployed here (`engine lambda deploy`)')
  })
})
