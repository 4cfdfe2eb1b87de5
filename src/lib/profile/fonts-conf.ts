import {dirname} from 'node:path'
import type {RenderProfile} from './render-profile.js'

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')
}

/**
 * A fontconfig configuration that sees the profile's font files and nothing else: it includes no
 * system or user configuration, scans only the directories of the profile's files and rejects any
 * other file there, maps the generic families to profile fonts, and fixes the rasterisation
 * settings (grayscale antialiasing, no hinting) that system configurations otherwise choose.
 */
export function fontsConf(fonts: RenderProfile['fonts'], cacheDir: string): string {
  const directories = [...new Set(fonts.files.map((file) => dirname(file.path)))]
  const lines = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">',
    '<!-- Generated from the render profile; system and user font configuration is deliberately not included. -->',
    '<fontconfig>',
    ...directories.map((directory) => `  <dir>${escapeXml(directory)}</dir>`),
    `  <cachedir>${escapeXml(cacheDir)}</cachedir>`,
    '  <selectfont>',
    '    <acceptfont>',
    ...fonts.files.map((file) => `      <glob>${escapeXml(file.path)}</glob>`),
    '    </acceptfont>',
    '    <rejectfont><glob>*</glob></rejectfont>',
    '  </selectfont>',
    ...fonts.aliases.map(
      (alias) => `  <alias binding="same"><family>${escapeXml(alias.family)}</family><prefer><family>${escapeXml(alias.font)}</family></prefer></alias>`,
    ),
    '  <match target="font">',
    '    <edit name="antialias" mode="assign"><bool>true</bool></edit>',
    '    <edit name="hinting" mode="assign"><bool>false</bool></edit>',
    '    <edit name="hintstyle" mode="assign"><const>hintnone</const></edit>',
    '    <edit name="autohint" mode="assign"><bool>false</bool></edit>',
    '    <edit name="rgba" mode="assign"><const>none</const></edit>',
    '    <edit name="lcdfilter" mode="assign"><const>lcdnone</const></edit>',
    '    <edit name="embeddedbitmap" mode="assign"><bool>false</bool></edit>',
    '  </match>',
    '</fontconfig>',
  ]
  return lines.join('\n') + '\n'
}
