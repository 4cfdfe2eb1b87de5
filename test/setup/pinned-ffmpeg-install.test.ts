import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import {copyFile, mkdir, mkdtemp, readFile, readdir, rm, symlink, truncate, writeFile} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {findPinnedFfmpeg, hostFfmpegArch, PINNED_FFMPEG, pinnedFfmpegDir, type PinnedFfmpegBuild} from '../../src/lib/encode/pinned-ffmpeg.js'
import type {EngineError} from '../../src/lib/errors/engine-error.js'
import {downloadMirrors} from '../../src/lib/setup/download-mirrors.js'
import {installPinnedFfmpeg} from '../../src/lib/setup/install-pinned-ffmpeg.js'
import {seedPinnedFfmpeg} from '../support/pinned-ffmpeg.js'
import {runCli} from '../support/run-cli.js'

const execFileAsync = promisify(execFile)
const FOLDER = 'ffmpeg-9.9-test-static'
const sha256 = async (file: string) => createHash('sha256').update(await readFile(file)).digest('hex')
const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: EngineError) => error)

/**
 * Archives laid out as the publisher's, built here from this machine's ffmpeg and ffprobe (the
 * pinned constants cannot be checked without its internet): tar by the tar package (which can
 * write links and `..` names), xz by the system's xz.
 */
async function makeArchive(root: string, name: string, entries: string[], options: {preservePaths?: boolean} = {}): Promise<string> {
  const tarFile = join(root, `${name}.tar`)
  await create({cwd: root, file: tarFile, portable: true, preservePaths: options.preservePaths}, entries)
  await execFileAsync('xz', ['-0', '-T1', '-f', tarFile])
  return `${tarFile}.xz`
}

describe('the pinned ffmpeg download (a loopback server stands in for the publisher)', {timeout: 60_000}, () => {
  let scratch: string
  let server: Server
  let base: string
  const served = new Map<string, string>()
  const hits: string[] = []
  const spec = (archive: string, urls: string[], digest: string): PinnedFfmpegBuild => ({
    version: '9.9',
    arch: hostFfmpegArch() ?? 'x86_64',
    archive,
    urls,
    sha256: digest,
    ffmpeg: `${FOLDER}/ffmpeg`,
    ffprobe: `${FOLDER}/ffprobe`,
  })
  const cacheEnv = (name: string) => ({ENGINE_CACHE_DIR: join(scratch, 'caches', name)})
  let good: string

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-pinned-ffmpeg-'))
    const folder = join(scratch, FOLDER)
    await mkdir(folder)
    await copyFile('/usr/bin/ffmpeg', join(folder, 'ffmpeg'))
    await copyFile('/usr/bin/ffprobe', join(folder, 'ffprobe'))
    await writeFile(join(folder, 'readme.txt'), 'not taken\n')
    good = await makeArchive(scratch, 'good', [FOLDER])
    served.set('/releases/good.tar.xz', good)
    served.set('/mirror/good.tar.xz', good)

    const truncated = join(scratch, 'truncated.tar.xz')
    await copyFile(good, truncated)
    await truncate(truncated, Math.floor((await readFile(good)).length / 2))
    served.set('/releases/truncated.tar.xz', truncated)

    // A name that climbs out of the folder, beside the real programs.
    await writeFile(join(scratch, 'evil'), 'outside\n')
    const traversalRoot = join(scratch, 'traversal', 'inside')
    await mkdir(traversalRoot, {recursive: true})
    await execFileAsync('cp', ['-r', folder, traversalRoot])
    await copyFile(join(scratch, 'evil'), join(scratch, 'traversal', 'evil'))
    served.set('/releases/traversal.tar.xz', await makeArchive(traversalRoot, 'traversal', [FOLDER, '../evil'], {preservePaths: true}))

    // ffmpeg is a symbolic link: to its sibling, and (another archive) to a program elsewhere on the machine.
    for (const [name, target] of [['link', 'ffprobe'], ['outside-link', '/usr/bin/ffmpeg']]) {
      const linkRoot = join(scratch, name)
      await mkdir(join(linkRoot, FOLDER), {recursive: true})
      await symlink(target, join(linkRoot, FOLDER, 'ffmpeg'))
      await copyFile('/usr/bin/ffprobe', join(linkRoot, FOLDER, 'ffprobe'))
      served.set(`/releases/${name}.tar.xz`, await makeArchive(linkRoot, name, [FOLDER]))
    }

    server = createServer((request, response) => {
      hits.push(request.url!)
      if (request.url === '/releases/trickle.tar.xz') {
        // Headers, then a byte now and then: never stalled, never done.
        response.writeHead(200, {'content-length': 1_000_000})
        const timer = setInterval(() => response.write('x'), 50)
        response.on('close', () => clearInterval(timer))
        return
      }
      const file = served.get(request.url!)
      if (!file) {
        response.writeHead(404).end()
        return
      }
      void readFile(file).then((body) => response.writeHead(200, {'content-length': body.length}).end(body))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve))
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('takes the first address that has the archive, checks it, places only ffmpeg and ffprobe, and reuses the cache on the next call', async () => {
    const pinned = spec('good.tar.xz', [`${base}/releases/moved.tar.xz`, `${base}/releases/good.tar.xz`], await sha256(good))
    const env = cacheEnv('good')
    hits.length = 0
    const progress: number[] = []
    const first = await installPinnedFfmpeg(pinned, {env, onProgress: (done, total) => done === total && progress.push(total)})
    expect(progress).toEqual([(await readFile(good)).length])
    expect(first).toMatchObject({source: 'download', ffmpegPath: join(pinnedFfmpegDir(pinned, env), 'ffmpeg'), record: {url: `${base}/releases/good.tar.xz`, sha256: pinned.sha256}})
    expect(hits).toEqual(['/releases/moved.tar.xz', '/releases/good.tar.xz'])
    expect((await readdir(first.directory)).sort()).toEqual(['build.json', 'ffmpeg', 'ffprobe'])
    expect(await sha256(first.ffmpegPath)).toBe(await sha256('/usr/bin/ffmpeg'))
    expect(first.record.ffprobeSha256).toBe(await sha256('/usr/bin/ffprobe'))
    const {stdout} = await execFileAsync(first.ffprobePath, ['-hide_banner', '-version'])
    expect(stdout).toMatch(/^ffprobe version /)

    const second = await installPinnedFfmpeg(pinned, {env})
    expect(second).toMatchObject({source: 'cache', ffmpegPath: first.ffmpegPath})
    expect(hits).toHaveLength(2)
    // A repinned build does not take the older unpack for its own.
    expect(await findPinnedFfmpeg({...pinned, sha256: '0'.repeat(64)}, env)).toBeUndefined()
  })

  it('a mirror replaces the published addresses: only <mirror>/<archive> is asked', async () => {
    const mirror = downloadMirrors({ENGINE_FFMPEG_MIRROR: `${base}/mirror/`}).ffmpeg
    expect(mirror).toBe(`${base}/mirror`)
    const pinned = spec('good.tar.xz', ['http://127.0.0.2:9/never-asked.tar.xz'], await sha256(good))
    hits.length = 0
    await expect(installPinnedFfmpeg(pinned, {env: cacheEnv('mirror'), mirror})).resolves.toMatchObject({source: 'download', record: {url: `${base}/mirror/good.tar.xz`}})
    expect(hits).toEqual(['/mirror/good.tar.xz'])
    expect(() => downloadMirrors({ENGINE_FFMPEG_MIRROR: 'file:///srv/ffmpeg'})).toThrow(/ENGINE_FFMPEG_MIRROR: "file:\/\/\/srv\/ffmpeg" is not an http\(s\) URL/)
  })

  it('a checksum that differs is refused, naming the address, both hashes and the fix; nothing lands in the cache', async () => {
    const env = cacheEnv('mismatch')
    const expected = 'ab'.repeat(32)
    const error = await failure(installPinnedFfmpeg(spec('good.tar.xz', [`${base}/releases/good.tar.xz`, `${base}/mirror/good.tar.xz`], expected), {env}))
    expect(error.code).toBe('DOWNLOAD_FAILED')
    expect(error.message).toContain(`${base}/releases/good.tar.xz does not match its pinned sha256 (expected ${expected}, got ${await sha256(good)})`)
    expect(error.message).toMatch(/--ffmpeg\/--ffprobe.*ENGINE_FFMPEG_MIRROR/)
    expect(existsSync(join(env.ENGINE_CACHE_DIR, 'ffmpeg')) ? await readdir(join(env.ENGINE_CACHE_DIR, 'ffmpeg')) : []).toEqual([])
  })

  it.each([
    ['truncated', /cannot be read .*truncated or not a tar\.xz/],
    ['traversal', /an entry outside its folder \("\.\.\/evil"\)/],
    ['link', /ffmpeg-9\.9-test-static\/ffmpeg in the archive is a SymbolicLink, not a plain file/],
    ['outside-link', /a link that points outside it \("ffmpeg-9\.9-test-static\/ffmpeg" -> "\/usr\/bin\/ffmpeg"\)/],
  ])('a %s archive (whose hash was pinned by mistake) is refused whole; nothing lands in the cache', async (name, reason) => {
    const archive = served.get(`/releases/${name}.tar.xz`)!
    const env = cacheEnv(name)
    const error = await failure(installPinnedFfmpeg(spec(`${name}.tar.xz`, [`${base}/releases/${name}.tar.xz`], await sha256(archive)), {env}))
    expect(error.code).toBe('DOWNLOAD_FAILED')
    expect(error.message).toMatch(reason)
    expect(error.message).toContain('nothing was installed')
    expect(await readdir(join(env.ENGINE_CACHE_DIR, 'ffmpeg'))).toEqual([])
    expect(await readFile(join(scratch, 'evil'), 'utf8')).toBe('outside\n')
  })

  it('a download that trickles is ended at its deadline, and the next address is tried', async () => {
    const pinned = spec('good.tar.xz', [`${base}/releases/trickle.tar.xz`, `${base}/releases/good.tar.xz`], await sha256(good))
    // No stall timeout that could end the trickle first: only the deadline can, as the message says.
    await expect(installPinnedFfmpeg(pinned, {env: cacheEnv('trickle'), deadlineMs: 400, stallTimeoutMs: 600_000})).resolves.toMatchObject({source: 'download', record: {url: `${base}/releases/good.tar.xz`}})
    const error = await failure(installPinnedFfmpeg({...pinned, urls: [`${base}/releases/trickle.tar.xz`]}, {env: cacheEnv('trickle-only'), deadlineMs: 400, stallTimeoutMs: 600_000}))
    expect(error.message).toContain(`${base}/releases/trickle.tar.xz: not downloaded within 0.4 s`)
  })

  it('offline (every address refuses): one error listing each address and the fix', async () => {
    // A port that was just free and is closed again: the connection is refused.
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
    await new Promise((resolve) => probe.close(resolve))
    const error = await failure(installPinnedFfmpeg(spec('good.tar.xz', [`${closed}/a.tar.xz`, `${closed}/b.tar.xz`], 'ab'.repeat(32)), {env: cacheEnv('offline')}))
    expect(error.code).toBe('DOWNLOAD_FAILED')
    expect(error.message).toContain(`could not download ffmpeg 9.9 (${hostFfmpegArch()}): ${closed}/a.tar.xz: connect ECONNREFUSED`)
    expect(error.message).toContain(`; ${closed}/b.tar.xz: connect ECONNREFUSED`)
    expect(error.message).toMatch(/--ffmpeg\/--ffprobe/)
  })

  it('engine ffmpeg install: a mirror serving another file is refused with exit 1 and an empty cache; a cached build is reported without a download', async () => {
    const env = {...cacheEnv('cli'), ENGINE_FFMPEG_MIRROR: `${base}/mirror`}
    served.set(`/mirror/${PINNED_FFMPEG.x86_64.archive}`, good)
    const refused = await runCli(['ffmpeg', 'install', '--arch', 'x86_64'], {env})
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain(`${base}/mirror/${PINNED_FFMPEG.x86_64.archive} does not match its pinned sha256 (expected ${PINNED_FFMPEG.x86_64.sha256}`)
    expect(await readdir(join(env.ENGINE_CACHE_DIR, 'ffmpeg'))).toEqual([])

    const directory = await seedPinnedFfmpeg(env.ENGINE_CACHE_DIR)
    hits.length = 0
    const cached = await runCli(['ffmpeg', 'install', '--arch', 'x86_64', '--json'], {env})
    expect(cached.code, cached.stderr).toBe(0)
    expect(JSON.parse(cached.stdout)).toEqual({version: '7.0.2', arch: 'x86_64', ffmpegPath: join(directory, 'ffmpeg'), ffprobePath: join(directory, 'ffprobe'), sha256: PINNED_FFMPEG.x86_64.sha256, url: PINNED_FFMPEG.x86_64.urls[0], source: 'cache'})
    expect(hits).toEqual([])
  })
})
