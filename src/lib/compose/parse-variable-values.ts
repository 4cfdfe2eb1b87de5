export type ParsedVariableValues = {ok: true; values: Record<string, unknown>} | {ok: false; error: string}

/** Reads a host's `data-variable-values`: a JSON object; absent means no overrides. */
export function parseVariableValues(raw: string | undefined): ParsedVariableValues {
  if (raw === undefined) return {ok: true, values: {}}
  let json: unknown
  try {
    json = JSON.parse(raw)
  } catch (error) {
    return {ok: false, error: `not valid JSON (${(error as Error).message})`}
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return {ok: false, error: 'must be a JSON object such as {"title": "Hello"}'}
  }
  return {ok: true, values: json as Record<string, unknown>}
}
