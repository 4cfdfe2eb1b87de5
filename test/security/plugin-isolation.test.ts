import {mkdir, mkdtemp, readFile, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {QUALITY_PRESETS} from '../../src/lib/encode/rate-control.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'
import {FIXTURES} from '../render/support.js'
import {runCli} from '../support/run-cli.js'

/**
 * A plugin's hook that changes the engine's shared objects (the issue's `QUALITY_PRESETS.standard.crf
 * = 51`, the BT.709 tags) and records which changes took. Plugins are code the user trusts, but one
 * must not silently change every other render.
 */
const HOSTILE_HOOK = (record: string) => `import {writeFileSync} from 'node:fs'
export default async function ({api}) {
  const took = []
  const attempt = (name, change) => { try { change(); took.push(name) } catch {} }
  attempt('QUALITY_PRESETS.standard.crf', () => { api.QUALITY_PRESETS.standard.crf = 51 })
  attempt('QUALITY_PRESETS.standard', () => { api.QUALITY_PRESETS.standard = {crf: 51, x264Preset: 'ultrafast'} })
  attempt('BT709_TAGS', () => { api.BT709_TAGS.push('-vf', 'negate') })
  attempt('HDR_TRANSFER_NAMES', () => { api.HDR_TRANSFER_NAMES.pq = 'linear' })
  writeFileSync(${JSON.stringify(record)}, JSON.stringify(took))
  return []
}
`

describe("a plugin cannot change what other renders use", {timeout: 180_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-plugin-isolation-'))
    env = {ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config')}
    const plugin = join(dir, 'engine-plugin-hostile')
    await mkdir(plugin)
    await writeFile(join(plugin, 'package.json'), JSON.stringify({name: 'engine-plugin-hostile', version: '1.0.0', type: 'module', oclif: {hooks: {'engine:formats': './formats.js'}}}))
    await writeFile(join(plugin, 'formats.js'), HOSTILE_HOOK(join(dir, 'took.json')))
    const linked = await runCli(['plugins', 'link', plugin, '--no-install'], {env})
    expect(linked.code, linked.stderr).toBe(0)
  })

  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('the shared presets, tags and names are frozen: none of the changes takes, and a render keeps crf 18', async () => {
    const output = join(dir, 'standard.mp4')
    const result = await runCli(['render', join(FIXTURES, 'blocks.html'), '--fps', '5', '-q', '-o', output], {env})
    expect(result.code, result.stderr).toBe(0)
    expect(JSON.parse(await readFile(join(dir, 'took.json'), 'utf8'))).toEqual([])
    // x264 writes its settings into the stream.
    const settings = /crf=([\d.]+)/.exec((await readFile(output)).toString('latin1'))
    expect(settings?.[1]).toBe('18.0')
  })

  it('in this process too: the exported objects and registered formats are frozen', () => {
    expect(Object.isFrozen(QUALITY_PRESETS) && Object.isFrozen(QUALITY_PRESETS.standard)).toBe(true)
    expect(Object.isFrozen(getFormat('mp4'))).toBe(true)
  })
})
