import {spawn} from 'node:child_process'
import {mkdtemp, readdir, rm, stat, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {installedPackageBin} from '../../src/lib/browser/function-chromium.js'
import {REPO_ROOT} from '../support/run-cli.js'

// Two processes race as four did: both unpack in full, then one's folder is renamed into place
// and the other must take it rather than replace it. Each unpack costs about 2 CPU-s of brotli.
const PROCESSES = 2

/** One process: waits for the start file, unpacks, and says which folder (its inode) it was handed and whether its executable is there. */
const CHILD = `
import {access, constants, stat} from 'node:fs/promises'
import {existsSync} from 'node:fs'
const [module, bin, directory, go] = process.argv.slice(2)
const {unpackFunctionChromium} = await import(module)
for (let i = 0; i < 600 && !existsSync(go); i++) await new Promise((resolve) => setTimeout(resolve, 50))
await unpackFunctionChromium(bin, directory)
const inode = (await stat(directory)).ino
await access(directory + '/chromium', constants.X_OK)
process.stdout.write(JSON.stringify({inode}))
`

describe.runIf(process.platform === 'linux' && process.arch === 'x64')('the function\'s Chromium unpacked by several processes at once', () => {
  let directory: string
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'engine-unpack-race-'))
  })
  afterAll(async () => {
    if (directory) await rm(directory, {recursive: true, force: true})
  })

  it(`${PROCESSES} processes: each gets a complete build, none replaces the folder another was handed, no staging folder is left`, {timeout: 180_000}, async () => {
    const bin = installedPackageBin(join(REPO_ROOT, 'package.json'))
    expect(bin, '@sparticuz/chromium at the pinned version is installed').toBeDefined()
    const script = join(directory, 'unpack.mjs')
    await writeFile(script, CHILD)
    const target = join(directory, 'function-chromium')
    const go = join(directory, 'go')
    const module = pathToFileURL(join(REPO_ROOT, 'dist', 'src', 'lib', 'browser', 'function-chromium.js')).href
    const runs = Array.from({length: PROCESSES}, () => {
      const child = spawn(process.execPath, [script, module, bin!, target, go], {stdio: ['ignore', 'pipe', 'pipe']})
      let out = ''
      let err = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk))
      child.stderr.on('data', (chunk: Buffer) => (err += chunk))
      return new Promise<{code: number | null; out: string; err: string}>((resolve) => child.on('close', (code) => resolve({code, out, err})))
    })
    await writeFile(go, '')
    const results = await Promise.all(runs)
    for (const result of results) expect(result.code, result.err).toBe(0)
    const inodes = results.map((result) => (JSON.parse(result.out) as {inode: number}).inode)
    // The first build in place stays: every process was handed the same folder, the one there now.
    const final = (await stat(target)).ino
    expect(inodes).toEqual(Array(PROCESSES).fill(final))
    expect((await readdir(directory)).sort()).toEqual(['function-chromium', 'go', 'unpack.mjs'])
  })
})
