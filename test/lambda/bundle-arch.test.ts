import {existsSync} from 'node:fs'
import {chmod, copyFile, mkdir, mkdtemp, readdir, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {brotliCompressSync, brotliDecompressSync} from 'node:zlib'
import {create} from 'tar'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {functionChromiumPackName, functionChromiumPackUrl, installedPackageBin} from '../../src/lib/browser/function-chromium.js'
import {buildLambdaBundle, type BuildBundleOptions, type BundleReport} from '../../packages/lambda/src/lib/lambda/bundle/build-lambda-bundle.js'
import {elfArch, fileElfInfo} from '../../packages/lambda/src/lib/lambda/bundle/elf-arch.js'
import {encoderFiles} from '../../packages/lambda/src/lib/lambda/bundle/encoder-parts.js'
import {PINNED_FFMPEG} from '../../src/lib/encode/pinned-ffmpeg.js'
import {readZipEntry} from '../../packages/lambda/src/lib/lambda/bundle/read-zip.js'
import {prepareCode} from '../../packages/lambda/src/lib/lambda/deploy/deploy-code.js'
import type {EngineError} from '../../src/lib/errors/engine-error.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'

const SYSTEM_FFMPEG = '/usr/bin/ffmpeg'
const NPM_FFMPEG = join(REPO_ROOT, 'node_modules', '@ffmpeg-installer', 'linux-x64', 'ffmpeg')
const bin = installedPackageBin(join(REPO_ROOT, 'package.json'))!

/**
 * The header of a static Linux arm64 program (e_machine 0xb7, no program interpreter). No arm64
 * build can be fetched or run in a test here; the bundle only reads these headers, as it would a
 * real one's.
 */
function arm64Header(): Buffer {
  const header = Buffer.alloc(64)
  header.writeUInt32BE(0x7f454c46, 0)
  header.set([2, 1, 1], 4)
  header.writeUInt16LE(2, 16)
  header.writeUInt16LE(0xb7, 18)
  header.writeBigUInt64LE(64n, 32)
  header.writeUInt16LE(56, 54)
  header.writeUInt16LE(0, 56)
  return header
}

/** A pack laid out as sparticuz publishes it: the four brotli files at the top of a tar. */
async function makePack(directory: string, chromium: Buffer): Promise<string> {
  await mkdir(directory, {recursive: true})
  await writeFile(join(directory, 'chromium.br'), brotliCompressSync(chromium))
  for (const file of ['swiftshader.tar.br', 'fonts.tar.br', 'al2023.tar.br']) await copyFile(join(bin, file), join(directory, file))
  const pack = `${directory}.tar`
  await create({cwd: directory, file: pack, portable: true}, ['chromium.br', 'swiftshader.tar.br', 'fonts.tar.br', 'al2023.tar.br'])
  return pack
}

const failure = (promise: Promise<unknown>) => promise.then(() => expect.fail('expected a failure'), (error: EngineError) => error)

describe('lambda bundle --arch', {timeout: 120_000}, () => {
  let scratch: string
  let armPack: string
  let armFfmpeg: string
  let report: BundleReport
  const build = (name: string, options: Omit<BuildBundleOptions, 'output'>) => buildLambdaBundle({output: join(scratch, name), ...options})

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'engine-bundle-arch-'))
    armFfmpeg = join(scratch, 'ffmpeg-arm64')
    await writeFile(armFfmpeg, arm64Header())
    await chmod(armFfmpeg, 0o755)
    armPack = await makePack(join(scratch, 'pack-arm64'), arm64Header())
    report = await build('arm64.zip', {arch: 'arm64', chromiumPack: armPack, ffmpegPath: armFfmpeg, ffprobePath: armFfmpeg})
  }, 120_000)
  afterAll(async () => {
    if (scratch) await rm(scratch, {recursive: true, force: true})
  })

  it('reads the machine and linking of real programs from their ELF headers', async () => {
    expect(await fileElfInfo(SYSTEM_FFMPEG)).toEqual({arch: 'x86_64', dynamic: true})
    expect(await fileElfInfo(NPM_FFMPEG)).toEqual({arch: 'x86_64', dynamic: false})
    expect(await fileElfInfo(join(REPO_ROOT, 'package.json'))).toBeUndefined()
  })

  it('arm64 with an arm64 pack and arm64 ffmpeg: every binary in the zip is arm64, and the manifest says so', async () => {
    const zip = join(scratch, 'arm64.zip')
    expect(report).toMatchObject({arch: 'arm64', chromium: {pack: 'pack-arm64.tar'}, ffmpeg: {path: armFfmpeg, arch: 'arm64', dynamic: false}})
    // It cannot run here: no version or encoder list is claimed for it.
    expect(report.ffmpeg.version).toBeUndefined()
    for (const name of ['bin/ffmpeg', 'bin/ffprobe']) expect(elfArch((await readZipEntry(zip, name))!)).toBe('arm64')
    const chromium = (await readZipEntry(zip, 'node_modules/@sparticuz/chromium/bin/chromium.br', 256 * 1024 * 1024))!
    expect(elfArch(brotliDecompressSync(chromium))).toBe('arm64')
    expect(JSON.parse((await readZipEntry(zip, 'engine-bundle.json'))!.toString('utf8'))).toMatchObject({arch: 'arm64'})
    // deploy takes it for --arch arm64 only.
    await expect(prepareCode(zip, 'arm64', () => {})).resolves.toMatchObject({zipPath: zip})
    expect((await failure(prepareCode(zip, 'x86_64', () => {}))).message).toContain('was built for arm64, not --arch x86_64')
  })

  it('arm64 without a pack: refused, naming the part and the exact download; nothing is written', async () => {
    const error = await failure(build('no-pack.zip', {arch: 'arm64', ffmpegPath: armFfmpeg, ffprobePath: armFfmpeg}))
    expect(error.code).toBe('BUNDLE_FAILED')
    expect(error.message).toContain('carries Chromium for x86_64 only')
    expect(error.message).toContain(functionChromiumPackUrl('arm64'))
    expect(error.message).toContain('--chromium-pack')
    expect(existsSync(join(scratch, 'no-pack.zip'))).toBe(false)
  })

  it('arm64 without arm64 ffmpeg: refused, naming the npm package and --ffmpeg', async () => {
    const error = await failure(build('no-ffmpeg.zip', {arch: 'arm64', chromiumPack: armPack}))
    expect(error.code).toBe('BUNDLE_FAILED')
    expect(error.message).toContain('@ffmpeg-installer/linux-arm64')
    expect(error.message).toContain('--ffmpeg <file> --ffprobe <file>')
  })

  it('offline, the pinned ffmpeg cannot be downloaded: the npm builds go in, with a warning naming the exact download and the flags', async () => {
    const warnings: string[] = []
    const env = {ENGINE_CACHE_DIR: join(scratch, 'offline-cache')}
    const closed = 'http://127.0.0.1:9/ffmpeg-mirror'
    const encoders = await encoderFiles(REPO_ROOT, {arch: 'x86_64', mirror: closed, env, onWarning: (message) => warnings.push(message)})
    expect(encoders.ffmpeg).toMatchObject({source: 'npm-package', package: '@ffmpeg-installer/linux-x64', packageVersion: '4.1.0'})
    expect(encoders.ffprobe).toMatchObject({source: 'npm-package', package: '@ffprobe-installer/linux-x64'})
    expect(encoders.files.map((file) => file.source)).toEqual([NPM_FFMPEG, expect.stringContaining('@ffprobe-installer/linux-x64/ffprobe')])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toContain('not the pinned ffmpeg 7.0.2, which could not be downloaded')
    expect(warnings[0]).toContain(`${closed}/${PINNED_FFMPEG.x86_64.archive}`)
    expect(warnings[0]).toContain(`Download ${PINNED_FFMPEG.x86_64.urls[0]} (sha256 ${PINNED_FFMPEG.x86_64.sha256}) yourself`)
    expect(warnings[0]).toMatch(/--ffmpeg\/--ffprobe.*ENGINE_FFMPEG_MIRROR/)
    expect(existsSync(join(env.ENGINE_CACHE_DIR, 'ffmpeg')) ? await readdir(join(env.ENGINE_CACHE_DIR, 'ffmpeg')) : []).toEqual([])
  })

  it('a binary for the other architecture is refused by flag name', async () => {
    const x64OnArm = await failure(build('mixed.zip', {arch: 'arm64', chromiumPack: armPack, ffmpegPath: SYSTEM_FFMPEG, ffprobePath: armFfmpeg}))
    expect(x64OnArm).toMatchObject({code: 'INVALID_FLAG', message: `--ffmpeg: ${SYSTEM_FFMPEG} is built for x86_64, not --arch arm64; pass the arm64 build`})
    const armPackOnX64 = await failure(build('mixed-pack.zip', {arch: 'x86_64', chromiumPack: armPack}))
    expect(armPackOnX64.code).toBe('BUNDLE_FAILED')
    expect(armPackOnX64.message).toContain(`is built for arm64; use ${functionChromiumPackName('x86_64')}`)
    const notElf = await failure(build('text.zip', {arch: 'x86_64', ffmpegPath: join(REPO_ROOT, 'package.json'), ffprobePath: join(REPO_ROOT, 'package.json')}))
    expect(notElf).toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining('is not a Linux program')})
  })

  it('a pack without the build files is refused', async () => {
    const empty = join(scratch, 'empty.tar')
    await create({cwd: REPO_ROOT, file: empty, portable: true}, ['package.json'])
    const error = await failure(build('empty-pack.zip', {arch: 'x86_64', chromiumPack: empty}))
    expect(error).toMatchObject({code: 'INVALID_FLAG', message: expect.stringContaining('lacks chromium.br, swiftshader.tar.br, fonts.tar.br, al2023.tar.br')})
  })

  it('the CLI takes --ffmpeg and --ffprobe only together, and --arch only from the two Lambda names', async () => {
    const alone = await runCli(['lambda', 'bundle', '--ffmpeg', SYSTEM_FFMPEG, '--output', join(scratch, 'alone.zip')])
    expect(alone.code).not.toBe(0)
    expect(alone.stderr).toMatch(/--ffprobe/)
    const arch = await runCli(['lambda', 'bundle', '--arch', 'aarch64', '--output', join(scratch, 'arch.zip')])
    expect(arch.code).not.toBe(0)
    expect(arch.stderr).toMatch(/--arch must be x86_64 or arm64, not "aarch64"/)
    expect(existsSync(join(scratch, 'alone.zip')) || existsSync(join(scratch, 'arch.zip'))).toBe(false)
  })
})
