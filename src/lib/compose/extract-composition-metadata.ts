import type {VariableDeclaration} from '../variables/variable-declaration.js'
import {parseComposition, type NumberAttribute} from './parse-composition.js'

export interface CompositionMetadata {
  id?: string
  width?: number
  height?: number
  /** Seconds. */
  duration?: number
  /** Valid declarations only; invalid ones and unknown types are left out. */
  variables: VariableDeclaration[]
}

/**
 * What an editing UI needs without rendering: the composition's id, size, duration and variable
 * declarations, read from HTML text. Never throws on a composition; missing or invalid values are
 * undefined.
 */
export function extractCompositionMetadata(html: string): CompositionMetadata {
  const parsed = parseComposition(html)
  return {
    id: parsed.id,
    width: positive(parsed.width, true),
    height: positive(parsed.height, true),
    duration: positive(parsed.duration, false),
    variables: parsed.declarations.declarations,
  }
}

function positive(attribute: NumberAttribute, integer: boolean): number | undefined {
  const {value} = attribute
  return value !== undefined && value > 0 && (!integer || Number.isInteger(value)) ? value : undefined
}
