import {join} from 'node:path'
import {z} from 'zod'
import {packageRoot} from '../sandbox/package-root.js'
import {variableDeclarationSchema} from './variable-declaration.js'

/** Where the package ships the JSON Schema of `data-composition-variables` (package.json `files`). */
export const DECLARATIONS_SCHEMA_PATH = 'schemas/composition-variables.schema.json'

/** The installed schema file, for messages that point a user at it. */
export function declarationsSchemaFile(): string {
  return join(packageRoot(), DECLARATIONS_SCHEMA_PATH)
}

/**
 * The JSON Schema of a `data-composition-variables` value, made from the zod schema that validates
 * it, so an editor checks a declaration as engine does. What JSON Schema cannot say (ids unique, an
 * enum's default among its options) is said in the description; `engine lint` checks both.
 */
export function declarationsJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(z.array(variableDeclarationSchema), {io: 'input', unrepresentable: 'any'}) as unknown as {$schema: string; items: {oneOf: Variant[]}}
  const variants = schema.items.oneOf
  return {
    $schema: schema.$schema,
    title: 'data-composition-variables',
    description:
      'The variables a composition declares, as the JSON array of its data-composition-variables attribute. Also checked by engine lint, which adds: ids are unique, an enum default is one of its options.',
    type: 'array',
    items: {
      type: 'object',
      required: ['id', 'type', 'label', 'default'],
      properties: {type: {enum: variants.map((variant) => variant.properties.type.const)}},
      // One `if type is X then` branch per type rather than zod's oneOf, so that an editor reports
      // the field at fault (a color default) instead of every type the declaration is not.
      allOf: variants.map((variant) => ({if: {properties: {type: {const: variant.properties.type.const}}, required: ['type']}, then: variant})),
    },
  }
}

interface Variant {
  properties: {type: {const: string}} & Record<string, unknown>
}
