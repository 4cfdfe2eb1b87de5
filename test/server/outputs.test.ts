import {access, mkdtemp, readdir, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {serverFetch} from '../../src/lib/server-client/server-api.js'
import type {StreamEvent} from '../../src/lib/server/stream-events.js'
import {rawRequest} from '../security/support/raw-http.js'
import {FakeRenderer} from './support/fake-render.js'
import {openStream, startTestServer, type TestServer} from './support/test-server.js'

let testServer: TestServer | undefined
afterEach(async () => {
  await testServer?.close()
  testServer = undefined
})

async function renderOnce(body: Parameters<typeof openStream>[1]): Promise<Extract<StreamEvent, {type: 'complete'}>> {
  const final = await openStream(testServer!.connection, body).done
  if (final.type !== 'complete') throw new Error(JSON.stringify(final))
  return final
}

describe('render outputs', () => {
  it('downloads each format with its content type; a png-sequence is a JSON listing of downloadable frames', async () => {
    testServer = await startTestServer({}, {render: new FakeRenderer({autoFinishMs: 1}).render})
    const {connection} = testServer
    for (const [format, type, name] of [
      ['mp4', 'video/mp4', 'comp.mp4'],
      ['mov', 'video/quicktime', 'comp.mov'],
      ['webm', 'video/webm', 'comp.webm'],
      ['gif', 'image/gif', 'comp.gif'],
    ]) {
      const {outputUrl} = await renderOnce({composition: 'comp.html', format})
      const response = await serverFetch(connection, outputUrl)
      expect(response.headers.get('content-type'), format).toBe(type)
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${name}"`)
    }

    const {outputUrl, requestId} = await renderOnce({composition: 'comp.html', format: 'png-sequence'})
    const listing = await (await serverFetch(connection, outputUrl)).json()
    expect(listing).toEqual({
      requestId,
      format: 'png-sequence',
      files: [
        {name: 'frame_000000.png', bytes: 5, url: `/render/${requestId}/output/frame_000000.png`},
        {name: 'frame_000001.png', bytes: 5, url: `/render/${requestId}/output/frame_000001.png`},
      ],
    })
    const frame = await serverFetch(connection, listing.files[1].url)
    expect(frame.headers.get('content-type')).toBe('image/png')
    expect(await frame.text()).toBe('png 1')
    for (const name of ['..%2Fcomp.png', '%2E%2E', 'nope.png']) {
      // Sent as written: a WHATWG URL would fold %2E%2E into a ".." segment before sending.
      const response = await rawRequest(`${connection.url}/render/${requestId}/output/${name}`)
      expect(response.status, name).toBe(404)
    }
  })

  it('renders inline html from a private temporary file that is gone afterwards', async () => {
    const seen: string[] = []
    const fake = new FakeRenderer({autoFinishMs: 1})
    testServer = await startTestServer({}, {
      render: async (request) => {
        seen.push(request.composition)
        await access(request.composition)
        return fake.render(request)
      },
    })
    const {outputUrl} = await renderOnce({html: '<html data-composition-id="x"></html>'})
    expect(seen[0]).toMatch(/engine-serve-inline-.*composition\.html$/)
    await expect(access(seen[0])).rejects.toThrow()
    const response = await serverFetch(testServer.connection, outputUrl)
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="composition.mp4"')
  })

  it('DELETE removes a finished output; only the newest --keep-outputs outputs are kept', async () => {
    testServer = await startTestServer({keepOutputs: 2}, {render: new FakeRenderer({autoFinishMs: 1}).render})
    const {connection, server} = testServer
    const first = await renderOnce({composition: 'comp.html'})
    const second = await renderOnce({composition: 'comp.html'})
    const third = await renderOnce({composition: 'comp.html'})
    expect((await fetch(new URL(first.outputUrl, connection.url))).status).toBe(404)
    expect((await fetch(new URL(second.outputUrl, connection.url))).status).toBe(200)
    expect((await readdir(server.service.outputs.dir)).sort()).toEqual([second.requestId, third.requestId].sort())

    const deleted = await serverFetch(connection, `/render/${third.requestId}`, {method: 'DELETE'})
    expect(await deleted.json()).toEqual({requestId: third.requestId, status: 'deleted'})
    expect((await fetch(new URL(third.outputUrl, connection.url))).status).toBe(404)
    expect(await readdir(server.service.outputs.dir)).toEqual([second.requestId])

    const dir = server.service.outputs.dir
    await testServer.close()
    testServer = undefined
    await expect(access(dir)).rejects.toThrow()
  })

  it('with --output-dir, outputs are written there and survive the server', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'engine-serve-outputs-'))
    try {
      testServer = await startTestServer({outputDir: dir}, {render: new FakeRenderer({autoFinishMs: 1}).render})
      const {requestId} = await renderOnce({composition: 'comp.html'})
      await testServer.close()
      testServer = undefined
      expect(await readdir(join(dir, requestId))).toEqual(['comp.mp4'])
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
})
