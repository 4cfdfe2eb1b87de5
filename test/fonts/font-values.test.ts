import {describe, expect, it} from 'vitest'
import {mapGenericFamilies, parseFamilyList, parseFontShorthand} from '../../src/lib/fonts/css-font-values.js'
import {parseGoogleFontsUrl} from '../../src/lib/fonts/google-fonts-url.js'
import {parseUnicodeRange, uncoveredCharacters} from '../../src/lib/fonts/font-subsets.js'

describe('Google Fonts URLs', () => {
  it('reads css2 weight and ital,wght tuples, ranges and extra parameters', () => {
    const url = 'https://fonts.googleapis.com/css2?family=Inter:wght@400;700&family=JetBrains+Mono:ital,wght@0,400;1,400&display=swap&text=abc'
    expect(parseGoogleFontsUrl(url)).toEqual([
      {family: 'Inter', weight: 400, style: 'normal'},
      {family: 'Inter', weight: 700, style: 'normal'},
      {family: 'JetBrains Mono', weight: 400, style: 'normal'},
      {family: 'JetBrains Mono', weight: 400, style: 'italic'},
    ])
    expect(parseGoogleFontsUrl('https://fonts.googleapis.com/css2?family=Oswald:wght@200..500')?.map((face) => face.weight)).toEqual([200, 300, 400, 500])
    expect(parseGoogleFontsUrl('https://fonts.googleapis.com/css2?family=Anton')).toEqual([{family: 'Anton', weight: 400, style: 'normal'}])
  })

  it('reads the css (v1) API with variants and | separated families', () => {
    expect(parseGoogleFontsUrl('//fonts.googleapis.com/css?family=Roboto:400,700italic|Open+Sans&subset=latin-ext')).toEqual([
      {family: 'Roboto', weight: 400, style: 'normal'},
      {family: 'Roboto', weight: 700, style: 'italic'},
      {family: 'Open Sans', weight: 400, style: 'normal'},
    ])
  })

  it('refuses what it cannot read instead of guessing', () => {
    for (const url of [
      'https://fonts.googleapis.com/css2?display=swap',
      'https://fonts.googleapis.com/css2?family=Inter:wght@bold',
      'https://fonts.googleapis.com/css2?family=Inter:ital,wght@1',
      'https://fonts.googleapis.com/css?family=Roboto:heavy',
      'https://fonts.googleapis.com/css2?family=%3Cscript%3E',
      'not a url',
    ]) {
      expect(parseGoogleFontsUrl(url), url).toBeUndefined()
    }
  })
})

describe('CSS font values', () => {
  it('splits family lists, keeping quoted names whole and telling keywords from names', () => {
    expect(parseFamilyList(`"Open Sans", 'A, B', Inter Display, serif, var(--x), inherit`)).toEqual([
      {name: 'Open Sans', keyword: false},
      {name: 'A, B', keyword: false},
      {name: 'Inter Display', keyword: false},
      {name: 'serif', keyword: true},
    ])
  })

  it('finds the family list, weight and style of the font shorthand', () => {
    expect(parseFontShorthand('italic 700 40px/1.2 Inter, sans-serif')).toEqual({families: 'Inter, sans-serif', weight: '700', style: 'italic'})
    expect(parseFontShorthand('bold 12px "JetBrains Mono"')).toEqual({families: '"JetBrains Mono"', weight: 'bold', style: undefined})
    expect(parseFontShorthand('caption')).toBeUndefined()
  })

  it('maps generic keywords to their bundled faces and leaves names that only contain them', () => {
    expect(mapGenericFamilies('Inter, sans-serif', 'font-family')).toBe('Inter, "Noto Sans"')
    expect(mapGenericFamilies('monospace', 'font-family')).toBe('"Noto Sans Mono"')
    expect(mapGenericFamilies('"sans-serif", My serif', 'font-family')).toBe('"sans-serif", My serif')
    expect(mapGenericFamilies('bold 12px/1 serif', 'font')).toBe('bold 12px/1 "Noto Serif"')
    expect(mapGenericFamilies('12px Inter, sans-serif !important', 'font')).toBe('12px Inter, "Noto Sans" !important')
    // system-ui is a generic in Chromium: quoted, it names the stand-in engine serves under that name.
    expect(mapGenericFamilies('12px Inter, system-ui !important', 'font')).toBe('12px Inter, "system-ui" !important')
    expect(mapGenericFamilies('ui-monospace, monospace', 'font-family')).toBe('ui-monospace, "Noto Sans Mono"')
  })
})

describe('unicode ranges', () => {
  it('parses ranges and wildcards and finds the characters they leave out', () => {
    const ranges = parseUnicodeRange('U+0000-00FF, U+0131,U+04??')!
    expect(ranges).toEqual([[0, 0xff], [0x131, 0x131], [0x400, 0x4ff]])
    expect(uncoveredCharacters('Zoë Ивана ő ı', ranges)).toEqual(['ő'])
    expect(parseUnicodeRange('U+XYZ')).toBeUndefined()
  })
})
