import {readdir} from 'node:fs/promises'
import {afterEach, describe, expect, it} from 'vitest'
import {getQueueStatus, serverFetch} from '../../src/lib/server-client/server-api.js'
import {FakeRenderer} from './support/fake-render.js'
import {eventually, ofType, openStream, startTestServer, type TestServer} from './support/test-server.js'

let testServer: TestServer | undefined
afterEach(async () => {
  await testServer?.close()
  testServer = undefined
})

const body = (id: string) => ({composition: 'comp.html', variables: {id}})

describe('POST /render/stream with a FIFO queue', () => {
  it('honours N slots with N+3 requests: queued positions 1..3, queue counts, FIFO start order, downloads', async () => {
    const fake = new FakeRenderer()
    testServer = await startTestServer({maxConcurrentRenders: 2}, {render: fake.render})
    const {connection} = testServer
    const ids = ['r0', 'r1', 'r2', 'r3', 'r4']
    const streams = []
    // Sent one after another so that arrival order is well defined.
    for (const id of ids) {
      const stream = openStream(connection, body(id))
      await stream.waitFor((event) => event.type === 'queued' || event.type === 'started')
      streams.push(stream)
    }
    expect(streams[0].events[0]).toMatchObject({type: 'started'})
    expect(streams[1].events[0]).toMatchObject({type: 'started'})
    expect(streams.slice(2).map((s) => s.events[0])).toEqual([
      {type: 'queued', requestId: expect.any(String), position: 1},
      {type: 'queued', requestId: expect.any(String), position: 2},
      {type: 'queued', requestId: expect.any(String), position: 3},
    ])
    expect(await getQueueStatus(connection)).toEqual({maxConcurrentRenders: 2, activeRenders: 2, queuedRenders: 3})
    await fake.whenStarted('r1')
    expect(fake.started).toEqual(['r0', 'r1'])

    await fake.finish('r1')
    await streams[2].waitFor(ofType('started'))
    await streams[3].waitFor((event) => event.type === 'queued' && event.position === 1)
    await streams[4].waitFor((event) => event.type === 'queued' && event.position === 2)
    expect(await getQueueStatus(connection)).toEqual({maxConcurrentRenders: 2, activeRenders: 2, queuedRenders: 2})

    for (const id of ['r0', 'r2', 'r3', 'r4']) {
      await fake.finish(id)
    }
    const finals = await Promise.all(streams.map((s) => s.done))
    expect(fake.started).toEqual(ids)
    expect(await getQueueStatus(connection)).toEqual({maxConcurrentRenders: 2, activeRenders: 0, queuedRenders: 0})

    for (const [index, final] of finals.entries()) {
      expect(final).toMatchObject({type: 'complete', format: 'mp4', bytes: 10, duration: 1, totalFrames: 10})
      if (final.type !== 'complete') continue
      expect(final.outputUrl).toBe(`/render/${final.requestId}/output`)
      const response = await serverFetch(connection, final.outputUrl)
      expect(response.headers.get('content-type')).toBe('video/mp4')
      expect(await response.text()).toBe(`video for ${ids[index]}`)
    }
  })

  it('relays the render as started, progress (frame, totalFrames, stage) and warning events', async () => {
    const fake = new FakeRenderer({autoFinishMs: 10})
    testServer = await startTestServer({}, {render: fake.render})
    const stream = openStream(testServer.connection, body('a'))
    await stream.done
    const types = stream.events.map((event) => event.type)
    expect(types[0]).toBe('started')
    expect(types.at(-1)).toBe('complete')
    expect(stream.events).toContainEqual(expect.objectContaining({type: 'warning', code: 'undeclared'}))
    expect(stream.events).toContainEqual(expect.objectContaining({type: 'progress', stage: 'capture', frame: 5, totalFrames: 10}))
    expect(stream.events).toContainEqual(expect.objectContaining({type: 'progress', stage: 'assemble', frame: 10, totalFrames: 10}))
    const ids = new Set(stream.events.map((event) => event.requestId))
    expect(ids.size).toBe(1)
  })

  it('DELETE cancels a queued render (those behind move up) and a running one (its slot and files are freed)', async () => {
    const fake = new FakeRenderer()
    testServer = await startTestServer({maxConcurrentRenders: 1}, {render: fake.render})
    const {connection, server} = testServer
    const running = openStream(connection, body('a'))
    const runningId = (await running.waitFor(ofType('started'))).requestId
    const queued = openStream(connection, body('b'))
    const queuedId = (await queued.waitFor(ofType('queued'))).requestId
    const last = openStream(connection, body('c'))
    await last.waitFor((event) => event.type === 'queued' && event.position === 2)

    const cancelQueued = await serverFetch(connection, `/render/${queuedId}`, {method: 'DELETE'})
    expect(await cancelQueued.json()).toEqual({requestId: queuedId, status: 'cancelled'})
    expect(await queued.done).toMatchObject({type: 'error', code: 'CANCELLED'})
    await last.waitFor((event) => event.type === 'queued' && event.position === 1)
    expect(await getQueueStatus(connection)).toMatchObject({activeRenders: 1, queuedRenders: 1})

    expect(await readdir(server.service.outputs.dir)).toEqual([runningId])
    const cancelRunning = await serverFetch(connection, `/render/${runningId}`, {method: 'DELETE'})
    expect(await cancelRunning.json()).toEqual({requestId: runningId, status: 'cancelled'})
    expect(await running.done).toMatchObject({type: 'error', code: 'CANCELLED'})
    expect(fake.running.has('a')).toBe(false)
    await fake.whenStarted('c')
    expect(await readdir(server.service.outputs.dir)).not.toContain(runningId)
    expect(fake.started).toEqual(['a', 'c'])
    await fake.finish('c')
    expect(await last.done).toMatchObject({type: 'complete'})
  })

  it('a client that aborts cancels its request (it sends DELETE), queued or running', async () => {
    const fake = new FakeRenderer()
    testServer = await startTestServer({maxConcurrentRenders: 1}, {render: fake.render})
    const {connection} = testServer
    const runningAbort = new AbortController()
    const running = openStream(connection, body('a'), runningAbort.signal)
    await running.waitFor(ofType('started'))
    const queuedAbort = new AbortController()
    const queued = openStream(connection, body('b'), queuedAbort.signal)
    await queued.waitFor(ofType('queued'))
    const last = openStream(connection, body('c'))
    await last.waitFor(ofType('queued'))

    queuedAbort.abort()
    await eventually(async () => expect(await getQueueStatus(connection)).toMatchObject({activeRenders: 1, queuedRenders: 1}))
    await last.waitFor((event) => event.type === 'queued' && event.position === 1)

    runningAbort.abort()
    await fake.whenStarted('c')
    expect(fake.running.has('a')).toBe(false)
    expect(fake.started).toEqual(['a', 'c'])
    await expect(running.done).rejects.toThrow()
  })

  it('a closing server cancels its renders and ends their streams', async () => {
    const fake = new FakeRenderer()
    const local = await startTestServer({maxConcurrentRenders: 1}, {render: fake.render})
    const running = openStream(local.connection, body('a'))
    await running.waitFor(ofType('started'))
    const queued = openStream(local.connection, body('b'))
    await queued.waitFor(ofType('queued'))
    await local.close()
    expect(await running.done).toMatchObject({type: 'error', code: 'CANCELLED', message: 'the server is shutting down'})
    expect(await queued.done).toMatchObject({type: 'error', code: 'CANCELLED'})
    expect(fake.running.size).toBe(0)
  })
})
