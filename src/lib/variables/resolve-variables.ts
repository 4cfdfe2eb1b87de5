import {defaultValues, type VariableDeclaration} from './variable-declaration.js'

/**
 * Declared defaults overlaid, key by key, with each override layer in order (lowest first): a key
 * missing from a layer falls through to the layer below. Undeclared keys are passed through so a
 * script still sees what the caller supplied (validation reports them).
 */
export function resolveVariables(
  declarations: readonly VariableDeclaration[],
  ...layers: ReadonlyArray<Record<string, unknown> | undefined>
): Record<string, unknown> {
  const resolved = defaultValues(declarations)
  for (const layer of layers) {
    if (!layer) continue
    for (const [key, value] of Object.entries(layer)) {
      if (value !== undefined) resolved[key] = value
    }
  }
  return resolved
}
