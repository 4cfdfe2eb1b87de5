// The variable-declaration reference and the JSON Schema the package ships, both from the zod
// schema that validates declarations (src/lib/variables/variable-declaration.ts).
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {describeSchema} from './json-schema.mjs'
import {code, generatedHeader, table} from './markdown.mjs'

export async function variablesReference(root) {
  const {declarationsJsonSchema, DECLARATIONS_SCHEMA_PATH} = await import(pathToFileURL(join(root, 'dist/src/lib/variables/declarations-schema.js')).href)
  const schema = declarationsJsonSchema()
  const variants = schema.items.allOf.map((branch) => branch.then)
  const rows = variants.flatMap((variant) => {
    const type = variant.properties.type.const
    return Object.entries(variant.properties)
      .filter(([field]) => field !== 'type')
      .map(([field, property]) => [code(type), code(field), variant.required.includes(field) ? 'yes' : 'no', describeSchema(property), property.description ?? ''])
  })
  const text = [
    generatedHeader('Variable declarations', 'the zod schema in src/lib/variables/variable-declaration.ts'),
    'A composition declares its variables in `data-composition-variables` on `<html>`: a JSON array with one object per variable. ' +
      'Every declaration has `id`, `type`, `label` and `default`; each type adds its own fields. Unknown fields are ignored. ' +
      'How to use them: [variables](../guides/compositions/variables.md).',
    '',
    table(['Type', 'Field', 'Required', 'Value', 'Meaning'], rows),
    '',
    'Beyond the table, `engine lint` checks that ids are unique and that an enum\'s `default` is one of its options. ' +
      'A declaration of another `type` is dropped with a warning (`variable-unknown-type`).',
    '',
    '## JSON Schema',
    '',
    `The package ships the same rules as a JSON Schema (draft 2020-12): [\`${DECLARATIONS_SCHEMA_PATH}\`](../../${DECLARATIONS_SCHEMA_PATH}), ` +
      `installed at \`node_modules/html-video-engine/${DECLARATIONS_SCHEMA_PATH}\`. \`engine lint\` names it when it finds a declaration problem.`,
    '',
    'An editor checks a declarations file against it. In VS Code, for files named `*.variables.json` (`settings.json`):',
    '',
    '```json',
    '{',
    '  "json.schemas": [',
    `    {"fileMatch": ["*.variables.json"], "url": "./node_modules/html-video-engine/${DECLARATIONS_SCHEMA_PATH}"}`,
    '  ]',
    '}',
    '```',
    '',
    'Any JSON Schema validator (ajv, for example) checks the value of the attribute the same way.',
    '',
  ]
  return new Map([
    ['variables.md', text.join('\n')],
    [`../../${DECLARATIONS_SCHEMA_PATH}`, JSON.stringify(schema, null, 2) + '\n'],
  ])
}
