/** Choices as a message lists them: `draft, standard or high`. */
export function oneOf(values: readonly string[]): string {
  return values.length > 1 ? `${values.slice(0, -1).join(', ')} or ${values.at(-1)}` : (values[0] ?? '')
}
