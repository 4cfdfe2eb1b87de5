import {copyFile, mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {runCli} from '../support/run-cli.js'
import {FIXTURES, frameFiles, useScratchDir} from './support.js'

const HOST_FONT = '/usr/share/fonts/truetype/liberation/LiberationMono-Regular.ttf'

/**
 * A host font configuration that changes every generic family: on top of the system's own
 * configuration it adds a directory with a different font whose family is renamed to "sans-serif",
 * and prefers that font for every request.
 */
async function hostileFontConfig(directory: string): Promise<string> {
  const extra = join(directory, 'extra-fonts')
  await mkdir(extra, {recursive: true})
  const shadow = join(extra, 'shadow.ttf')
  await copyFile(HOST_FONT, shadow)
  const config = join(directory, 'hostile-fonts.conf')
  await writeFile(
    config,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${extra}</dir>
  <cachedir>${join(directory, 'fontconfig-cache')}</cachedir>
  <match target="scan">
    <test name="file"><string>${shadow}</string></test>
    <edit name="family" mode="assign_replace"><string>sans-serif</string></edit>
  </match>
  <match target="pattern">
    <edit name="family" mode="prepend" binding="strong"><string>sans-serif</string></edit>
  </match>
</fontconfig>
`,
  )
  return config
}

describe('fonts under the deterministic profile', () => {
  const scratch = useScratchDir()

  it('render generic families the same whatever fonts and font configuration the host has', async () => {
    const hostile = {FONTCONFIG_FILE: await hostileFontConfig(scratch())}
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
