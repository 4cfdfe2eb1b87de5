import {mkdir, symlink, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {listCaptionFiles, MAX_CAPTION_FILES} from '../../src/lib/preview/caption-files.js'
import {useScratchDir} from '../support/scratch-dir.js'

/** The preview lists caption files for a caption variable's control: only the project's own, in bounds. */
describe('engine preview: the caption files it offers', () => {
  const scratch = useScratchDir('engine-preview-caption-files-')

  it('lists .vtt and .srt files under the composition\'s folder, never dot-files, dot-folders, node_modules or links leading out', async () => {
    const outside = join(scratch(), 'outside')
    const page = join(scratch(), 'project')
    await mkdir(outside)
    await mkdir(join(page, 'subs', 'deep'), {recursive: true})
    await mkdir(join(page, '.git'))
    await mkdir(join(page, 'node_modules', 'pkg'), {recursive: true})
    await writeFile(join(outside, 'secret.vtt'), 'WEBVTT\n')
    for (const file of ['en.vtt', 'subs/fr.SRT', 'subs/deep/de.vtt', 'notes.txt', '.hidden.vtt', '.git/x.vtt', 'node_modules/pkg/y.vtt']) await writeFile(join(page, file), 'WEBVTT\n')
    await symlink(join(outside, 'secret.vtt'), join(page, 'linked.vtt'))
    await symlink(outside, join(page, 'linked-folder'))
    expect(await listCaptionFiles(page)).toEqual(['en.vtt', 'subs/deep/de.vtt', 'subs/fr.SRT'])
  })

  it(`stops at ${MAX_CAPTION_FILES} files`, async () => {
    const page = join(scratch(), 'many')
    await mkdir(page)
    await Promise.all(Array.from({length: MAX_CAPTION_FILES + 50}, (_, index) => writeFile(join(page, `c${String(index).padStart(4, '0')}.vtt`), '')))
    expect(await listCaptionFiles(page)).toHaveLength(MAX_CAPTION_FILES)
  })
})
