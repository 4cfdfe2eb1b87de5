import {describe, expect, it} from 'vitest'
import {extractCompositionMetadata, parseComposition} from '../../src/lib/compose/index.js'

const declarations = JSON.stringify([
  {id: 'title', type: 'string', label: 'Title', default: 'Hi'},
  {id: 'shape', type: 'object', label: 'Shape', default: {}},
  {id: 'speed', type: 'number', label: 'Speed', default: 'fast'},
  {id: 'on', type: 'boolean', label: 'On', default: false},
])

describe('parseComposition', () => {
  it('takes <html> as the composition element when it carries data-composition-id', () => {
    const parsed = parseComposition('<html data-composition-id="m" data-width="640" data-height="360" data-duration="3"></html>')
    expect(parsed.root?.name).toBe('html')
    expect([parsed.id, parsed.width.value, parsed.height.value, parsed.duration.value]).toEqual(['m', 640, 360, 3])
  })

  it('otherwise takes the first element with data-composition-id that is not a host', () => {
    const parsed = parseComposition(`<html><body>
      <div id="host" data-composition-id="intro" data-composition-src="intro.html"></div>
      <div id="stage" data-composition-id="main" data-width="320" data-height="180" data-duration="2"></div>
    </body></html>`)
    expect(parsed.root?.attribs.id).toBe('stage')
    expect(parsed.id).toBe('main')
  })

  it('finds the composition element inside a <template>', () => {
    const parsed = parseComposition('<html><body><template><div data-composition-id="card" data-width="10" data-height="20"></div></template></body></html>')
    expect(parsed.id).toBe('card')
    expect(parsed.width.value).toBe(10)
  })

  it('reads clips, hosts and media with their attributes and lines', () => {
    const parsed = parseComposition(`<html data-composition-id="m" data-width="320" data-height="180" data-duration="4">
<body>
<div id="a" data-start="0" data-duration="1.5" data-track-index="1"></div>
<div id="b" data-start="a" data-duration="1"></div>
<div id="host" data-composition-src="sub.html" data-start="1" data-variable-values='{"x": 1}'><p data-start="9">ignored</p></div>
<video src="clip.mp4" data-start="0" data-has-audio="true" data-color-grading='{"preset": "warm-daylight"}'></video>
<audio src="music.mp3"></audio>
<template><div data-start="5">inert</div></template>
</body></html>`)
    expect(parsed.clips.map((clip) => [clip.id, clip.start, clip.duration.value, clip.line])).toEqual([
      ['a', 0, 1.5, 3],
      ['b', {after: 'a'}, 1, 4],
      ['host', 1, undefined, 5],
      [undefined, 0, undefined, 6],
    ])
    expect(parsed.clips[0].trackIndex.value).toBe(1)
    expect(parsed.hosts).toMatchObject([{src: 'sub.html', variableValuesRaw: '{"x": 1}', line: 5}])
    expect(parsed.media.map((media) => [media.tag, media.src, media.hasAudio, media.colorGradingRaw])).toEqual([
      ['video', 'clip.mp4', true, '{"preset": "warm-daylight"}'],
      ['audio', 'music.mp3', false, undefined],
    ])
  })
})

describe('extractCompositionMetadata', () => {
  it('returns id, size, duration and the valid declarations', () => {
    const html = `<html data-composition-variables='${declarations}'><body>
      <div data-composition-id="promo" data-width="1920" data-height="1080" data-duration="12.5"></div></body></html>`
    const metadata = extractCompositionMetadata(html)
    expect(metadata).toMatchObject({id: 'promo', width: 1920, height: 1080, duration: 12.5})
    // The unknown type is dropped silently; the mismatched default is left out too.
    expect(metadata.variables).toEqual([
      {id: 'title', type: 'string', label: 'Title', default: 'Hi'},
      {id: 'on', type: 'boolean', label: 'On', default: false},
    ])
  })

  it('never throws: invalid or missing pieces are undefined', () => {
    expect(extractCompositionMetadata('<p>not a composition')).toEqual({
      id: undefined,
      width: undefined,
      height: undefined,
      duration: undefined,
      variables: [],
    })
    const odd = extractCompositionMetadata(`<html data-composition-id="x" data-width="wide" data-height="-5" data-duration="0" data-composition-variables="[oops"></html>`)
    expect(odd).toEqual({id: 'x', width: undefined, height: undefined, duration: undefined, variables: []})
  })
})
