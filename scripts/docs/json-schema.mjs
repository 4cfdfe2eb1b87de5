// Turns the JSON Schema zod writes for a field into the short text a reference table shows.
import {code} from './markdown.mjs'

const MAX_SAFE = Number.MAX_SAFE_INTEGER

function range(schema) {
  const low = schema.minimum ?? schema.exclusiveMinimum
  const high = schema.maximum === MAX_SAFE ? undefined : (schema.maximum ?? schema.exclusiveMaximum)
  if (low !== undefined && high !== undefined) return ` ${low}-${high}`
  if (low !== undefined) return ` ≥ ${low}`
  if (high !== undefined) return ` ≤ ${high}`
  return ''
}

export function describeSchema(schema) {
  if (!schema || Object.keys(schema).length === 0) return 'any JSON value'
  if (schema.anyOf) return schema.anyOf.map(describeSchema).join(', or ')
  if (schema.const !== undefined) return code(JSON.stringify(schema.const))
  if (schema.enum) return `one of ${schema.enum.map((value) => code(value)).join(', ')}`
  const types = Array.isArray(schema.type) ? schema.type : [schema.type]
  return types
    .map((type) => {
      if (type === 'integer') return `integer${range(schema)}`
      if (type === 'number') return `number${range(schema)}`
      if (type === 'string') return schema.pattern ? `string matching ${code(schema.pattern)}` : 'string'
      if (type === 'object') {
        if (schema.properties) return `object {${Object.keys(schema.properties).join(', ')}}`
        return 'object'
      }
      return type
    })
    .join(' or ')
}
