import {createHash} from 'node:crypto'
import {cp, mkdir, readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {beforeAll, describe, expect, it} from 'vitest'
import {listEntries, RenderCache} from '../../src/lib/render-cache/index.js'
import {useScratchDir} from '../support/scratch-dir.js'

const CONTENT = Buffer.from('stored video bytes')
const sha = (data: Buffer | string) => createHash('sha256').update(data).digest('hex')
/** A key per case: entries are directories named by their key. */
const keyOf = (name: string) => sha(name)

describe('render cache entries that cannot be trusted are never reused', () => {
  const scratch = useScratchDir('engine-render-cache-hostile-')
  let cache: RenderCache
  let project: string
  let good: string

  /** A valid entry of `key` (the cache's own store), returned as its directory. */
  async function stored(key: string): Promise<string> {
    const source = join(scratch(), `source-${key}.mp4`)
    await writeFile(source, CONTENT)
    const claim = await cache.claim(key, [{role: 'output', path: join(scratch(), 'unused.mp4')}], project)
    expect(claim.lookup).toEqual({hit: false, reason: 'absent'})
    expect(await claim.store({kind: 'render', composition: 'card.html', files: [{role: 'output', path: source}], inputs: [{path: 'logo.svg', sha256: sha('<svg/>')}], result: {totalFrames: 5, durationSeconds: 0.5}})).toBeUndefined()
    claim.release()
    return join(cache.directory, key)
  }

  /** A copy of the good entry under `key`, its record changed by `edit`. */
  async function tampered(key: string, edit: (entry: Record<string, unknown>) => void): Promise<void> {
    const folder = join(cache.directory, key)
    await cp(good, folder, {recursive: true})
    const entry = JSON.parse(await readFile(join(folder, 'entry.json'), 'utf8')) as Record<string, unknown>
    entry.key = key
    edit(entry)
    await writeFile(join(folder, 'entry.json'), JSON.stringify(entry))
  }

  async function lookup(key: string) {
    const target = join(scratch(), 'out', `${key.slice(0, 8)}.mp4`)
    await mkdir(join(scratch(), 'out'), {recursive: true})
    const claim = await cache.claim(key, [{role: 'output', path: target}], project)
    claim.release()
    const written = (await readdir(join(scratch(), 'out'))).filter((name) => name.includes(key.slice(0, 8)))
    return {lookup: claim.lookup, written}
  }

  beforeAll(async () => {
    project = join(scratch(), 'project')
    await mkdir(project)
    await writeFile(join(project, 'logo.svg'), '<svg/>')
    await writeFile(join(scratch(), 'secret.txt'), 'not for the page')
    cache = new RenderCache({directory: join(scratch(), 'cache'), budgetBytes: 1024 ** 3})
    good = await stored(keyOf('good'))
  })

  it('a whole entry is reused (the control case)', async () => {
    const {lookup: found, written} = await lookup(keyOf('good'))
    expect(found.hit).toBe(true)
    expect(written).toHaveLength(1)
  })

  it('an entry that cannot be copied to its target is a miss, not a failure', async () => {
    const blocker = join(scratch(), 'a-file')
    await writeFile(blocker, 'not a folder')
    const claim = await cache.claim(keyOf('good'), [{role: 'output', path: join(blocker, 'out.mp4')}], project)
    claim.release()
    expect(claim.lookup).toMatchObject({hit: false, reason: 'unreadable'})
    expect((await lookup(keyOf('good'))).lookup.hit).toBe(true)
  })

  it.each([
    ['control characters in its composition name', (entry: Record<string, unknown>) => (entry.composition = 'card\u001b]0;pwned\u0007.html')],
    ['a stored file name that is a path out of the cache', (entry: Record<string, unknown>) => ((entry.files as Array<{name: string}>)[0].name = '../../secret.txt')],
    ['an input path outside the project', (entry: Record<string, unknown>) => (entry.inputs = [{path: '../secret.txt', sha256: sha('not for the page')}])],
    ['an absolute input path', (entry: Record<string, unknown>) => (entry.inputs = [{path: join(scratch(), 'secret.txt'), sha256: sha('not for the page')}])],
    ['a record naming another key', (entry: Record<string, unknown>) => (entry.key = keyOf('good'))],
    ['a size that does not match its file', (entry: Record<string, unknown>) => ((entry.files as Array<{bytes: number}>)[0].bytes = 3)],
    ['unknown fields', (entry: Record<string, unknown>) => (entry.exec = 'rm -rf ~')],
    [
      'a text finding with terminal escapes in its element (a hit hands findings to the manifest and the terminal)',
      (entry: Record<string, unknown>) => (entry.textFindings = [{kind: 'clipped', element: '#name\u001b[2J', frame: 0, timeSeconds: 0, overflowPx: 12}]),
    ],
    ['more text findings than a row keeps', (entry: Record<string, unknown>) => (entry.textFindings = Array.from({length: 21}, () => ({kind: 'clipped', element: '#name', frame: 0, timeSeconds: 0, overflowPx: 12})))],
  ])('an entry with %s is dropped and nothing is written', async (name, edit) => {
    const key = keyOf(name)
    await tampered(key, edit)
    const {lookup: found, written} = await lookup(key)
    expect(found).toMatchObject({hit: false, reason: 'corrupt'})
    expect(written).toEqual([])
    expect(await readdir(cache.directory)).not.toContain(key)
    expect(await readFile(join(scratch(), 'secret.txt'), 'utf8')).toBe('not for the page')
  })

  it('a stored file that is a link to a file elsewhere, or an entry that is a link to a folder elsewhere, is not trusted', async () => {
    const linkedFile = keyOf('linked file')
    await tampered(linkedFile, (entry) => {
      ;(entry.files as Array<{bytes: number; sha256: string}>)[0].bytes = 'not for the page'.length
      ;(entry.files as Array<{bytes: number; sha256: string}>)[0].sha256 = sha('not for the page')
    })
    const name = (JSON.parse(await readFile(join(good, 'entry.json'), 'utf8')) as {files: Array<{name: string}>}).files[0].name
    await rm(join(cache.directory, linkedFile, name))
    await symlink(join(scratch(), 'secret.txt'), join(cache.directory, linkedFile, name))
    expect((await lookup(linkedFile)).lookup).toMatchObject({hit: false, reason: 'corrupt'})

    const elsewhere = join(scratch(), 'elsewhere')
    await cp(good, elsewhere, {recursive: true})
    const linkedEntry = keyOf('linked entry')
    const record = JSON.parse(await readFile(join(elsewhere, 'entry.json'), 'utf8')) as Record<string, unknown>
    await writeFile(join(elsewhere, 'entry.json'), JSON.stringify({...record, key: linkedEntry}))
    await symlink(elsewhere, join(cache.directory, linkedEntry))
    const result = await lookup(linkedEntry)
    expect(result.lookup).toMatchObject({hit: false, reason: 'corrupt'})
    expect(result.written).toEqual([])
  })

  it('an entry whose recorded project file changed is not reused, and engine cache ls lists only trusted entries', async () => {
    await writeFile(join(project, 'logo.svg'), '<svg width="2"/>')
    expect((await lookup(keyOf('good'))).lookup).toEqual({hit: false, reason: 'input-changed', detail: 'logo.svg'})
    // What a store killed before its rename leaves: never an entry.
    await mkdir(join(cache.directory, '.staging-killed'))
    await writeFile(join(cache.directory, '.staging-killed', 'entry.json'), '{}')
    const bad = keyOf('listed')
    await tampered(bad, (entry) => (entry.composition = '\u001b[2J'))
    expect((await listEntries(cache.directory)).map((entry) => entry.key)).toEqual([keyOf('good')])
  })
})
