import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {initProject} from '../../src/lib/init/init-project.js'

/** `engine init DIR --force` replaces files in DIR, never a file a link in DIR points at. */
describe('engine init never writes through a symlink', () => {
  let base: string
  let templates: string
  let outside: string

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'engine-init-links-'))
    templates = join(base, 'templates')
    outside = join(base, 'outside')
    await mkdir(join(templates, 'demo', 'assets'), {recursive: true})
    await writeFile(join(templates, 'demo', 'index.html'), '<html></html>')
    await writeFile(join(templates, 'demo', 'assets', 'logo.svg'), '<svg/>')
    await mkdir(outside)
  })
  afterAll(async () => {
    await rm(base, {recursive: true, force: true})
  })

  const fresh = async (name: string) => {
    const directory = join(base, name)
    await mkdir(directory)
    await writeFile(join(outside, 'victim.txt'), 'precious')
    return directory
  }

  it('a file of the project that is a link to a file outside: refused, the outside file unchanged, nothing written', async () => {
    const directory = await fresh('file-link')
    await symlink(join(outside, 'victim.txt'), join(directory, 'index.html'))
    await expect(initProject({directory, template: 'demo', templatesDir: templates, force: true})).rejects.toMatchObject({
      code: 'OUTPUT_NOT_WRITABLE',
      message: expect.stringContaining('index.html in ' + directory + ' is a symbolic link: engine init never writes through a link'),
    })
    expect(await readFile(join(outside, 'victim.txt'), 'utf8')).toBe('precious')
    expect((await readdir(directory)).sort()).toEqual(['index.html'])
  })

  it('a folder of the project that is a link, and a dangling link: refused, nothing created outside', async () => {
    const directory = await fresh('folder-link')
    await symlink(outside, join(directory, 'assets'))
    await expect(initProject({directory, template: 'demo', templatesDir: templates, force: true})).rejects.toMatchObject({code: 'OUTPUT_NOT_WRITABLE', message: expect.stringContaining('assets in')})
    expect(await readdir(outside)).toEqual(['victim.txt'])
    const dangling = await fresh('dangling')
    await symlink(join(outside, 'new.html'), join(dangling, 'index.html'))
    for (const force of [true, false]) {
      await expect(initProject({directory: dangling, template: 'demo', templatesDir: templates, force})).rejects.toMatchObject({code: 'OUTPUT_NOT_WRITABLE'})
    }
    expect(existsSync(join(outside, 'new.html'))).toBe(false)
  })

  it('--force still replaces regular files', async () => {
    const directory = await fresh('regular')
    await writeFile(join(directory, 'index.html'), 'old')
    await initProject({directory, template: 'demo', templatesDir: templates, force: true})
    expect(await readFile(join(directory, 'index.html'), 'utf8')).toBe('<html></html>')
    expect(await readFile(join(directory, 'assets', 'logo.svg'), 'utf8')).toBe('<svg/>')
  })
})
