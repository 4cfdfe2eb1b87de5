import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {mkdir, readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {parseStreamBody} from '../../src/lib/server/request-schema.js'
import {companionOutputName} from '../../src/lib/server-client/download-companions.js'
import {downloadOutput} from '../../src/lib/server-client/download-output.js'
import type {ServerConnection} from '../../src/lib/server-client/server-api.js'
import {useScratchDir} from '../render/support.js'
import '../support/register-builtin-plugins.js'

/**
 * HLS through `render --server`: the request names the server's output file (`outputName`), and the
 * server lists the files beside it. A hostile request must not name a file outside its output
 * directory, and a hostile server must not place other files beside the download, nor a download
 * other than the one it announced.
 */
describe('outputName and companion files of a server render', () => {
  const scratch = useScratchDir()
  let server: Server
  let connection: ServerConnection
  const requested: string[] = []

  beforeAll(async () => {
    server = createServer((req, res) => {
      requested.push(req.url ?? '')
      res.writeHead(200, {'Content-Type': 'application/octet-stream'})
      res.end(req.url?.endsWith('.m3u8') ? '#EXTM3U\n#EXTINF:1.0,\nclip_00000.ts\n#EXT-X-ENDLIST\n' : 'segment bytes')
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    connection = {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('a request naming its output with a path, a dot-file or an over-long name is refused, naming the field', () => {
    for (const outputName of ['../x', 'a/b', 'a\\b', '.hidden', '', 'x'.repeat(101), 'a\u0000b', 'clip.m3u8\n']) {
      expect(() => parseStreamBody({composition: 'comp.html', format: 'hls', outputName}), JSON.stringify(outputName)).toThrow(
        expect.objectContaining({code: 'INVALID_REQUEST', message: expect.stringContaining('body field "outputName"')}),
      )
    }
    expect(parseStreamBody({composition: 'comp.html', format: 'hls', outputName: 'clip-2.v1'}).outputName).toBe('clip-2.v1')
  })

  it('the client refuses an output name the server would refuse, before any request', () => {
    expect(() => companionOutputName(getFormat('hls'), join(scratch(), 'my clip.m3u8'))).toThrow(expect.objectContaining({code: 'INVALID_FLAG', message: expect.stringContaining('"my clip.m3u8"')}))
    expect(companionOutputName(getFormat('mp4'), join(scratch(), 'my clip.mp4'))).toBeUndefined()
  })

  const hostile: [string, unknown, RegExp][] = [
    ['a file that is not a segment of the playlist', [{name: 'evil.sh', bytes: 13, url: '/render/r/output/evil.sh'}], /not its hls companions \("evil\.sh"\)/],
    ['a segment of another playlist', [{name: 'other_00000.ts', bytes: 13, url: '/render/r/output/other_00000.ts'}], /not its hls companions/],
    ['a path', [{name: '../clip_00000.ts', bytes: 13, url: '/render/r/output/x.ts'}], /no valid list/],
    ['no list', undefined, /no valid list/],
    ['a segment of another size than announced', [{name: 'clip_00000.ts', bytes: 99, url: '/render/r/output/clip_00000.ts'}], /has 13 bytes, but the server announced 99/],
  ]
  for (const [what, companionFiles, message] of hostile) {
    it(`a server listing ${what} gets SERVER_RESPONSE_INVALID, and nothing is left where the output goes`, async () => {
      const directory = join(scratch(), what.replace(/\W+/g, '-'))
      await mkdir(directory)
      const before = requested.length
      const download = downloadOutput(connection, '/render/r/output/clip.m3u8', join(directory, 'clip.m3u8'), {expected: {format: 'hls', bytes: 60, totalFrames: 30, companionFiles}})
      await expect(download).rejects.toMatchObject({code: 'SERVER_RESPONSE_INVALID', message: expect.stringMatching(message)})
      expect(await readdir(directory)).toEqual([])
      expect(requested.slice(before).every((url) => url.startsWith('/render/r/output/clip'))).toBe(true)
    })
  }
})
