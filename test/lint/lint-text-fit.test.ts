import {describe, expect, it} from 'vitest'
import {loadHtml} from '../../src/lib/compose/load-html.js'
import {lintTextFit} from '../../src/lib/lint/lint-text-fit.js'

describe('lintTextFit', () => {
  it('accepts what the runtime reads and names each attribute it would ignore', () => {
    const $ = loadHtml(`<p data-fit="shrink" data-fit-min="12.5" data-max-lines="3">ok</p>
      <p id="a" data-fit="grow">x</p><p id="b" data-fit-min="0">x</p><p id="c" data-fit-min="12px">x</p>
      <p id="d" data-max-lines="0">x</p><p id="e" data-max-lines="1.5">x</p><p id="f" data-max-lines="two">x</p>`)
    expect(lintTextFit($).map((problem) => problem.message.split(' must')[0])).toEqual([
      'data-fit="grow" on <p id="a">',
      'data-fit-min="0" on <p id="b">',
      'data-fit-min="12px" on <p id="c">',
      'data-max-lines="0" on <p id="d">',
      'data-max-lines="1.5" on <p id="e">',
      'data-max-lines="two" on <p id="f">',
    ])
  })
})
