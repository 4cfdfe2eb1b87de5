import {afterEach, describe, expect, it} from 'vitest'
import {isLoopbackHost} from '../../src/lib/server/authorize.js'
import {resolveMaxConcurrentRenders, resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {getQueueStatus} from '../../src/lib/server-client/server-api.js'
import {FakeRenderer} from './support/fake-render.js'
import {openStream, startTestServer, type TestServer} from './support/test-server.js'

let testServer: TestServer | undefined
afterEach(async () => {
  await testServer?.close()
  testServer = undefined
})

describe('the token rule', () => {
  it('refuses to bind a non-loopback address without a token, and accepts one from --token or ENGINE_SERVER_TOKEN', async () => {
    await expect(resolveServerSettings({host: '0.0.0.0'}, {})).rejects.toMatchObject({
      code: 'INVALID_FLAG',
      message: expect.stringMatching(/--host 0.0.0.0 is reachable from other machines.*--token.*ENGINE_SERVER_TOKEN/),
    })
    expect(await resolveServerSettings({host: '0.0.0.0', token: 's3cret'}, {})).toMatchObject({host: '0.0.0.0', token: 's3cret'})
    expect(await resolveServerSettings({host: '::'}, {ENGINE_SERVER_TOKEN: 'from-env'})).toMatchObject({token: 'from-env'})
    expect(await resolveServerSettings({host: '0.0.0.0', token: 'flag'}, {ENGINE_SERVER_TOKEN: 'env'})).toMatchObject({token: 'flag'})
    await expect(resolveServerSettings({token: ' '}, {})).rejects.toMatchObject({code: 'INVALID_FLAG'})
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]']) expect(isLoopbackHost(host), host).toBe(true)
    for (const host of ['0.0.0.0', '::', '192.168.1.4', 'example.com']) expect(isLoopbackHost(host), host).toBe(false)
  })

  it('with a token, every route but /health answers 401 unless the bearer token is right', async () => {
    testServer = await startTestServer({token: 'tok-123'}, {render: new FakeRenderer({autoFinishMs: 1}).render})
    const url = (path: string) => new URL(path, testServer!.connection.url)
    const health = await fetch(url('/health'))
    expect(health.status).toBe(200)
    expect(await health.json()).toEqual({status: 'ok'})
    for (const authorization of [undefined, 'Bearer wrong', 'tok-123', 'Basic tok-123']) {
      const response = await fetch(url('/render/queue'), {headers: authorization ? {Authorization: authorization} : {}})
      expect(response.status, String(authorization)).toBe(401)
      expect(response.headers.get('www-authenticate')).toBe('Bearer')
      expect(await response.json()).toMatchObject({error: {code: 'UNAUTHORIZED'}})
    }
    const post = await fetch(url('/render/stream'), {method: 'POST', body: JSON.stringify({composition: 'comp.html'})})
    expect(post.status).toBe(401)
    const authorized = await fetch(url('/render/queue'), {headers: {Authorization: 'Bearer tok-123'}})
    expect(authorized.status).toBe(200)
    const stream = openStream(testServer.connection, {composition: 'comp.html'})
    expect(await stream.done).toMatchObject({type: 'complete'})
  })
})

describe('PRODUCER_MAX_CONCURRENT_RENDERS', () => {
  it('sets the slots like --max-concurrent-renders; the flag wins; an invalid value is a clear error', async () => {
    const env = (value: string) => ({PRODUCER_MAX_CONCURRENT_RENDERS: value})
    expect(resolveMaxConcurrentRenders(undefined, {})).toBe(2)
    expect(resolveMaxConcurrentRenders(undefined, env('4'))).toBe(4)
    expect(resolveMaxConcurrentRenders(1, env('4'))).toBe(1)
    for (const value of ['abc', '0', '11', '2.5', '-1']) {
      expect(() => resolveMaxConcurrentRenders(undefined, env(value)), value).toThrow(
        expect.objectContaining({code: 'INVALID_CONFIG', message: expect.stringMatching(/^PRODUCER_MAX_CONCURRENT_RENDERS: ".*" is not valid; set it to an integer from 1 to 10/)}),
      )
    }
    expect(() => resolveMaxConcurrentRenders(11, {})).toThrow(expect.objectContaining({code: 'INVALID_FLAG', message: expect.stringContaining('--max-concurrent-renders: 11')}))

    testServer = await startTestServer({}, {env: env('3')})
    expect(await getQueueStatus(testServer.connection)).toEqual({maxConcurrentRenders: 3, activeRenders: 0, queuedRenders: 0})
  })
})
