import {mkdtemp, rm} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {afterEach, describe, expect, it} from 'vitest'
import {overrideEnv} from '../support/override-env.js'
import {listInstalledPlugins} from '../../src/lib/config/installed-plugins.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'

describe('listInstalledPlugins (what a Lambda bundle or a container must carry)', {timeout: 120_000}, () => {
  let restoreEnv: (() => void) | undefined
  let dir: string | undefined
  afterEach(async () => {
    restoreEnv?.()
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('lists a linked plugin with its root, and nothing when none is installed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-installed-'))
    restoreEnv = overrideEnv({ENGINE_DATA_DIR: join(dir, 'data')})
    expect(await listInstalledPlugins()).toEqual([])
    const example = join(REPO_ROOT, 'examples', 'format-plugin')
    expect((await runCli(['plugins', 'link', example, '--no-install'], {env: {ENGINE_DATA_DIR: join(dir, 'data')}})).code).toBe(0)
    expect(await listInstalledPlugins()).toEqual([{name: 'engine-plugin-mkv', version: '1.0.0', root: example, type: 'link'}])
  })
})
