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

  it('reads engine.config.mjs when the user trusts the project, and refuses it unread otherwise', async () => {
    const dir = project({'package.json': '{}', 'engine.config.mjs': 'export default {crf: 23}'})
    expect((await loadConfig(dir, {trusted: true})).options).toEqual({crf: 23})
    await expect(loadConfig(dir)).rejects.toMatchObject({code: 'INVALID_CONFIG', message: expect.stringMatching(/engine\.config\.mjs is JavaScript/)})
  })

  it('names the file and the key of an invalid value', async () => {
    const dir = project({'package.json': '{}', 'engine.config.json': '{"crf": 99}'})
    await expect(loadConfig(dir)).rejects.toThrow(/engine\.config\.json: key "crf": 99 is invalid/)
    const unknown = project({'package.json': '{}', 'engine.config.json': '{"colour": "red"}'})
    await expect(loadConfig(unknown)).rejects.toMatchObject({code: 'INVALID_CONFIG', message: expect.stringMatching(/key "colour".*not a render option/)})
  })

  it.each([
    ['fps', '"fps": "sixty"', /engine\.config\.json: key "fps": "sixty" is not a frame rate/],
    ['fps', '"fps": 500', /engine\.config\.json: key "fps": "500" is out of range/],
    ['format', '"format": "avi"', /engine\.config\.json: key "format": "avi" is not a known format; use one of mp4/],
    ['browserPath', '"browserPath": "/nowhere/chromium"', /engine\.config\.json: key "browserPath": "\/nowhere\/chromium" is not an executable file/],
    ['variablesFile', '"variablesFile": "missing.json"', /engine\.config\.json: key "variablesFile": cannot read ".*missing\.json" \(ENOENT\)/],
    ['variablesFile', '"variablesFile": "list.json"', /engine\.config\.json: key "variablesFile" ".*list\.json": must be a JSON object of variable values, got an array/],
    ['batch', '"batch": "missing-rows.json"', /engine\.config\.json: key "batch" ".*missing-rows\.json": the file does not exist/],
    ['workers', '"workers": 0', /engine\.config\.json: key "workers": 0 is invalid/],
    ['videoBitrate', '"videoBitrate": "fast"', /engine\.config\.json: key "videoBitrate": "fast" is invalid \(must be a size such as 8M or 2500k\)/],
  ])('names the file and the key "%s" when its value is unusable: %s', async (_key, entry, message) => {
    const dir = project({'package.json': '{}', 'engine.config.json': `{${entry}}`, 'list.json': '[1, 2]'})
    const error = await loadConfig(dir, {trusted: true}).catch((caught: unknown) => caught)
    expect(error).toMatchObject({code: 'INVALID_CONFIG', message: expect.stringMatching(message)})
    expect((error as Error).message).toContain(join(dir, 'engine.config.json'))
  })

  it('reads usable variablesFile and batch paths relative to the directory it searched from', async () => {
    const dir = project({'package.json': '{}', 'engine.config.json': '{"variablesFile": "vars.json", "batch": "rows.json"}', 'vars.json': '{"title": "Ada"}', 'rows.json': '[{}]'})
    expect((await loadConfig(dir)).options).toEqual({variablesFile: 'vars.json', batch: 'rows.json'})
  })

  it('returns no options when there is no config', async () => {
    expect((await loadConfig(project({'package.json': '{}'}))).options).toEqual({})
  })
})
