import {mkdtempSync, writeFileSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/lib/config/load-config.js'

function project(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-config-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  return dir
}

describe('loadConfig', () => {
  it('reads engine.config.json', async () => {
    const dir = project({'package.json': '{}', 'engine.config.json': '{"fps": 60, "quality": "draft"}'})
    const config = await loadConfig(dir)
    expect(config.options).toEqual({fps: 60, quality: 'draft'})
    expect(config.filepath).toBe(join(dir, 'engine.config.json'))
  })

  it('reads .enginerc and the "engine" key of package.json', async () => {
    expect((await loadConfig(project({'package.json': '{}', '.enginerc': '{"workers": 2}'}))).options).toEqual({workers: 2})
    expect((await loadConfig(project({'package.json': '{"engine": {"format": "webm"}}'}))).options).toEqual({format: 'webm'})
  })

  it('reads engine.config.mjs', async () => {
    const dir = project({'package.json': '{}', 'engine.config.mjs': 'export default {crf: 23}'})
    expect((await loadConfig(dir)).options).toEqual({crf: 23})
  })

  it('names the file and the key of an invalid value', async () => {
    const dir = project({'package.json': '{}', 'engine.config.json': '{"crf": 99}'})
    await expect(loadConfig(dir)).rejects.toThrow(/engine\.config\.json: key "crf": 99 is invalid/)
    const unknown = project({'package.json': '{}', 'engine.config.json': '{"colour": "red"}'})
    await expect(loadConfig(unknown)).rejects.toMatchObject({code: 'INVALID_CONFIG', message: expect.stringMatching(/key "colour".*not a render option/)})
  })

  it('returns no options when there is no config', async () => {
    expect((await loadConfig(project({'package.json': '{}'}))).options).toEqual({})
  })
})
