import {readdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {resolveServerSettings} from '../../src/lib/server/server-settings.js'
import {startServer, type RunningServer} from '../../src/lib/server/start-server.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {getQueueStatus, serverFetch, type ServerConnection} from '../../src/lib/server-client/server-api.js'
import {near, pixelAt, probeVideoStream} from '../support/media.js'
import {useScratchDir} from '../render/support.js'
import {descendants, startedSince} from '../support/child-processes.js'
import {eventually, ofType, openStream} from './support/test-server.js'
import {PROCESSES} from '../support/timeouts.js'

const FIXTURES = join(import.meta.dirname, 'fixtures')
const small = {format: 'mp4', fps: 10, quality: 'draft', workers: 1} as const
// long.html renders whole in about a second at 10 fps (320x180, one worker): a render that is to be
// stopped mid-way draws 1,800 frames, so that it cannot end before the cancel reaches the server.
const long = {composition: 'long.html', ...small, fps: 60} as const

describe('engine serve with real renders', PROCESSES, () => {
  const scratch = useScratchDir()
  let server: RunningServer
  let connection: ServerConnection

  beforeAll(async () => {
    server = await startServer(await resolveServerSettings({port: 0, root: FIXTURES, maxConcurrentRenders: 1}, {}))
    connection = {url: server.url}
  })
  afterAll(() => server?.close())

  it('one slot, three concurrent streams: queued at 1 and 2, completed in order, each with its own colour', async () => {
    const colours = [
      {id: 'red', color: '#ff0000', rgb: {r: 255, g: 0, b: 0}},
      {id: 'green', color: '#00ff00', rgb: {r: 0, g: 255, b: 0}},
      {id: 'blue', color: '#0000ff', rgb: {r: 0, g: 0, b: 255}},
    ]
    const completed: string[] = []
    const streams = []
    for (const {id, color} of colours) {
      const stream = openStream(connection, {composition: 'color.html', ...small, variables: {id, color}})
      await stream.waitFor((event) => event.type === 'queued' || event.type === 'started')
      stream.done.then((event) => event.type === 'complete' && completed.push(id))
      streams.push(stream)
    }
    expect(streams.map((stream) => stream.events[0])).toEqual([
      expect.objectContaining({type: 'started'}),
      expect.objectContaining({type: 'queued', position: 1}),
      expect.objectContaining({type: 'queued', position: 2}),
    ])
    expect(await getQueueStatus(connection)).toEqual({maxConcurrentRenders: 1, activeRenders: 1, queuedRenders: 2})

    const finals = await Promise.all(streams.map((stream) => stream.done))
    expect(completed).toEqual(['red', 'green', 'blue'])
    expect(streams[2].events.filter(ofType('queued'))).toEqual([
      expect.objectContaining({position: 2}),
      expect.objectContaining({position: 1}),
    ])
    for (const [index, final] of finals.entries()) {
      expect(final).toMatchObject({type: 'complete', format: 'mp4', totalFrames: 10, duration: 1})
      const progress = streams[index].events.filter(ofType('progress')) as Extract<StreamEvent, {type: 'progress'}>[]
      expect(progress.some((event) => event.stage === 'capture' && event.totalFrames === 10 && event.frame > 0)).toBe(true)

      const response = await serverFetch(connection, (final as Extract<StreamEvent, {type: 'complete'}>).outputUrl)
      expect(response.headers.get('content-type')).toBe('video/mp4')
      const file = join(scratch(), `${colours[index].id}.mp4`)
      await writeFile(file, Buffer.from(await response.arrayBuffer()))
      expect(await probeVideoStream(file)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '10'})
      const pixel = await pixelAt(file, 5, 160, 120)
      expect(near(pixel, colours[index].rgb), `${colours[index].id}: ${JSON.stringify(pixel)}`).toBe(true)
    }
  })

  it('DELETE of a running render stops its browser and encoder, frees the slot and leaves no files', async () => {
    const before = await descendants()
    const stream = openStream(connection, long)
    const {requestId} = await stream.waitFor((event) => event.type === 'progress' && event.stage === 'capture' && event.frame > 0)
    expect((await startedSince(before)).length).toBeGreaterThan(0)
    const response = await serverFetch(connection, `/render/${requestId}`, {method: 'DELETE'})
    expect(await response.json()).toEqual({requestId, status: 'cancelled'})
    expect(await stream.done).toMatchObject({type: 'error', code: 'CANCELLED'})
    expect(await getQueueStatus(connection)).toMatchObject({activeRenders: 0, queuedRenders: 0})
    expect(await readdir(server.service.outputs.dir)).not.toContain(requestId)
    // The DELETE answers once the render has stopped: its processes are already gone.
    expect(await startedSince(before)).toEqual([])
  })

  it('a client that aborts mid-render (engine render --server on Ctrl-C) cancels it the same way', async () => {
    const before = await descendants()
    const abort = new AbortController()
    const stream = openStream(connection, long, abort.signal)
    const {requestId} = await stream.waitFor((event) => event.type === 'progress' && event.stage === 'capture' && event.frame > 0)
    abort.abort()
    await eventually(async () => expect(await getQueueStatus(connection)).toMatchObject({activeRenders: 0}))
    expect(await readdir(server.service.outputs.dir)).not.toContain(requestId)
    await eventually(async () => expect(await startedSince(before)).toEqual([]))
  })
})
