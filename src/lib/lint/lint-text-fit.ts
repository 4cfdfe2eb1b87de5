import type {CheerioAPI} from 'cheerio'
import type {Element} from 'domhandler'
import {describeElement, lineOf} from '../compose/load-html.js'
import {FIT_ATTRIBUTE, FIT_MIN_ATTRIBUTE, MAX_LINES_ATTRIBUTE} from '../runtime/text-check-protocol.js'

export interface TextFitProblem {
  message: string
  line?: number
}

const POSITIVE_NUMBER = /^\s*(\d+(\.\d*)?|\.\d+)\s*$/
const WHOLE_NUMBER = /^\s*\d+\s*$/

/**
 * How text should fit, as written: `data-fit` is `shrink`, `data-fit-min` a positive number of
 * pixels, `data-max-lines` a whole number of lines from 1. The runtime ignores what it cannot read,
 * so a typo would silently leave the text unfitted or unchecked.
 */
export function lintTextFit($: CheerioAPI): TextFitProblem[] {
  const problems: TextFitProblem[] = []
  const check = (attribute: string, valid: (value: string) => boolean, expected: string) => {
    $(`[${attribute}]`).each((_, element) => {
      const value = (element as Element).attribs[attribute]
      if (!valid(value)) {
        problems.push({message: `${attribute}="${value}" on ${describeElement(element as Element)} must be ${expected}; it is ignored`, line: lineOf(element as Element, attribute)})
      }
    })
  }
  check(FIT_ATTRIBUTE, (value) => value === 'shrink', '"shrink" (shrink the font size until the text fits its box)')
  check(FIT_MIN_ATTRIBUTE, (value) => POSITIVE_NUMBER.test(value) && Number(value) > 0, 'a positive number of pixels, the smallest size data-fit="shrink" goes to')
  check(MAX_LINES_ATTRIBUTE, (value) => WHOLE_NUMBER.test(value) && Number(value) >= 1, 'a whole number of lines, 1 or more')
  return problems
}
