import type {VariableDeclaration} from './variable-declaration.js'

/** The `image` variables among the declarations, with the value each resolves to (an empty value names no image). */
export function imageValues(declarations: readonly VariableDeclaration[], values: Record<string, unknown>): {variable: string; value: string}[] {
  return declarations.flatMap((declaration) => {
    const value = values[declaration.id]
    return declaration.type === 'image' && typeof value === 'string' && value.trim() !== '' ? [{variable: declaration.id, value: value.trim()}] : []
  })
}
