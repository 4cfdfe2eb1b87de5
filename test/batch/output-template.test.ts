import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {defaultOutputTemplate, fillOutputTemplate, sanitizeFileNamePart, templatePlaceholders} from '../../src/lib/batch/index.js'
import {getFormat} from '../../src/lib/encode/format-registry.js'

describe('batch output template', () => {
  it('defaults to renders/<name>-{index}.<ext>, a directory for png-sequence', () => {
    expect(defaultOutputTemplate('/x/card.html', getFormat('mp4'), '/work')).toBe(join('/work', 'renders', 'card-{index}.mp4'))
    expect(defaultOutputTemplate('/x/promo/index.html', getFormat('webm'), '/work')).toBe(join('/work', 'renders', 'promo-{index}.webm'))
    expect(defaultOutputTemplate('/x/card.html', getFormat('png-sequence'), '/work')).toBe(join('/work', 'renders', 'card-{index}'))
  })

  it('fills {index} and scalar keys of the row', () => {
    expect(fillOutputTemplate('out/{index}-{title}-{count}-{loop}.mp4', 3, {title: 'Ada', count: 2, loop: false})).toEqual({
      ok: true,
      path: 'out/3-Ada-2-false.mp4',
    })
    expect(templatePlaceholders('out/{title}/{index}-{title}.mp4')).toEqual(['title', 'index'])
  })

  it('keeps substituted values inside one file name', () => {
    expect(fillOutputTemplate('out/{title}.mp4', 0, {title: '../../etc/passwd'})).toEqual({ok: true, path: 'out/____etc_passwd.mp4'})
    expect(sanitizeFileNamePart('a/b\\c:d*e?f"g<h>i|j')).toBe('a_b_c_d_e_f_g_h_i_j')
    expect(sanitizeFileNamePart('..')).toBe('_')
    expect(sanitizeFileNamePart('.')).toBe('_')
    expect(sanitizeFileNamePart('v1.2 final')).toBe('v1.2 final')
    expect(sanitizeFileNamePart('x'.repeat(300))).toHaveLength(100)
  })

  it('reports every placeholder a row cannot fill, with the reason', () => {
    const filled = fillOutputTemplate('{name}-{data}-{none}-{blank}-{list}.mp4', 0, {data: {a: 1}, none: null, blank: ' ', list: [1]})
    expect(filled.ok).toBe(false)
    expect(!filled.ok && filled.problems).toEqual([
      {field: '--output {name}', reason: expect.stringContaining('the row has no "name" key')},
      {field: '--output {data}', reason: expect.stringContaining('"data" is an object; only a string, number or boolean')},
      {field: '--output {none}', reason: expect.stringContaining('"none" is null')},
      {field: '--output {blank}', reason: expect.stringContaining('"blank" is empty')},
      {field: '--output {list}', reason: expect.stringContaining('"list" is an array')},
    ])
  })
})
