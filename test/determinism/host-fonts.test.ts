import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {shadowFontConfig} from '../support/shadow-font-config.js'
import {FIXTURES, frameFiles, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

const HOST_FONT = '/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf'

describe('fonts under the deterministic profile', PROCESSES, () => {
  const scratch = useScratchDir()

  it('render generic families the same whatever fonts and font configuration the host has', async () => {
    // A host that renames another font to "sans-serif" and prefers it for every request.
    const {config} = await shadowFontConfig(scratch(), {source: HOST_FONT, family: 'sans-serif', preferEverywhere: true})
    const hostile = {FONTCONFIG_FILE: config}
    const render = async (name: string, profile: boolean, env?: NodeJS.ProcessEnv) => {
      const output = join(scratch(), name)
      const args = ['render', join(FIXTURES, 'fonts.html'), '--format', 'png-sequence', '-o', output, '--quiet', ...(profile ? ['--profile', 'deterministic'] : [])]
      const result = await runCli(args, {env})
      expect(result.code, result.stderr).toBe(0)
      return (await frameFiles(output)).get('frame_000000.png')!
    }

    const [plain, shadowed, profilePlain, profileShadowed] = [
      await render('plain', false),
      await render('shadowed', false, hostile),
      await render('profile-plain', true),
      await render('profile-shadowed', true, hostile),
    ]
    expect(shadowed.equals(plain), 'the host configuration does change a render without the profile').toBe(false)
    expect(profileShadowed.equals(profilePlain), 'the profile ignores the host font configuration').toBe(true)
    expect(profileShadowed.equals(shadowed)).toBe(false)
  })
})
