import {describeElement, lineOf} from './load-html.js'
import type {NumberAttribute, ParsedComposition} from './parse-composition.js'

export interface CompositionAttributeProblem {
  code: 'composition-id-missing' | 'composition-attribute-missing' | 'composition-attribute-invalid'
  message: string
  line?: number
}

/**
 * The composition element must exist and carry an id. The top-level file also needs a positive
 * integer `data-width`/`data-height`; its `data-duration` may be left out (the render then takes
 * the length of its registered timelines, see infer-duration). Written, each must be valid, in a
 * sub-composition too.
 */
export function checkCompositionAttributes(parsed: ParsedComposition, options: {isRoot: boolean}): CompositionAttributeProblem[] {
  const {root} = parsed
  if (!root || !parsed.id) {
    return [
      {
        code: 'composition-id-missing',
        message:
          'no composition element: put data-composition-id="main" on <html> or on the top element of the composition' +
          (options.isRoot ? ', together with data-width, data-height and data-duration' : ''),
        line: root ? lineOf(root, 'data-composition-id') : parsed.htmlElement && lineOf(parsed.htmlElement),
      },
    ]
  }
  const problems: CompositionAttributeProblem[] = []
  const check = (name: string, attribute: NumberAttribute, integer: boolean, example: string, required = options.isRoot) => {
    if (attribute.raw === undefined) {
      if (required) {
        problems.push({
          code: 'composition-attribute-missing',
          message: `the root composition element ${describeElement(root)} has no ${name}; add for example ${name}="${example}"`,
          line: lineOf(root),
        })
      }
      return
    }
    const value = attribute.value
    if (value === undefined || value <= 0 || (integer && !Number.isInteger(value))) {
      problems.push({
        code: 'composition-attribute-invalid',
        message: `${name}="${attribute.raw}" on ${describeElement(root)} must be a positive ${integer ? 'whole number of pixels' : 'number of seconds'}, for example ${name}="${example}"`,
        line: attribute.line,
      })
    }
  }
  check('data-width', parsed.width, true, '1920')
  check('data-height', parsed.height, true, '1080')
  check('data-duration', parsed.duration, false, '5', false)
  if (options.isRoot) {
    const timeout = parsed.readyTimeout
    if (timeout.raw !== undefined && !(timeout.value !== undefined && timeout.value > 0 && timeout.value <= MAX_READY_TIMEOUT_SECONDS)) {
      problems.push({
        code: 'composition-attribute-invalid',
        message: `data-ready-timeout="${timeout.raw}" on ${describeElement(root)} must be a number of seconds above 0 and at most ${MAX_READY_TIMEOUT_SECONDS}, for example data-ready-timeout="60"`,
        line: timeout.line,
      })
    }
  }
  return problems
}

/** The longest a composition may ask a capture to wait for it to be ready (`data-ready-timeout`). */
export const MAX_READY_TIMEOUT_SECONDS = 600

