import {copyFile, mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'

export interface ShadowFont {
  /** A font file of this machine, copied in and renamed. */
  source: string
  /** The family it claims to be. */
  family: string
  /** Also put that family first for every request (a host that prefers it everywhere). */
  preferEverywhere?: boolean
}

/**
 * A fontconfig configuration on top of the system's own, with one more font whose family is
 * renamed: a host whose fonts would change a render if the engine let them. Returns the
 * configuration file (for FONTCONFIG_FILE) and the copied font.
 */
export async function shadowFontConfig(directory: string, font: ShadowFont): Promise<{config: string; shadow: string}> {
  const fonts = join(directory, 'shadow-fonts')
  await mkdir(fonts, {recursive: true})
  const shadow = join(fonts, 'shadow.ttf')
  await copyFile(font.source, shadow)
  const config = join(directory, 'shadow-fonts.conf')
  const prefer = font.preferEverywhere
    ? `
  <match target="pattern">
    <edit name="family" mode="prepend" binding="strong"><string>${font.family}</string></edit>
  </match>`
    : ''
  await writeFile(
    config,
    `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <include ignore_missing="yes">/etc/fonts/fonts.conf</include>
  <dir>${fonts}</dir>
  <cachedir>${join(directory, 'fontconfig-cache')}</cachedir>
  <match target="scan">
    <test name="file"><string>${shadow}</string></test>
    <edit name="family" mode="assign_replace"><string>${font.family}</string></edit>
  </match>${prefer}
</fontconfig>
`,
  )
  return {config, shadow}
}
