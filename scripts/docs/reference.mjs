// Everything under docs/reference/, generated from the code it describes. `npm run
// docs:reference` writes it; test/docs/reference.test.ts regenerates it in memory and fails
// when a checked-in page differs. Reads dist/ for the runtime values: build first.
import {apiReference} from './api-reference.mjs'
import {attributesReference} from './attributes-reference.mjs'
import {cliReference} from './cli-reference.mjs'
import {configReference} from './config-reference.mjs'
import {errorsReference} from './errors-reference.mjs'
import {httpReference} from './http-reference.mjs'
import {limitsReference} from './limits-reference.mjs'
import {generatedHeader} from './markdown.mjs'
import {runtimeReference} from './runtime-reference.mjs'
import {variablesReference} from './variables-reference.mjs'

export const REFERENCE_DIR = 'docs/reference'

const INDEX = `${generatedHeader('Reference', 'scripts/docs/reference.mjs')}
Generated from the code and checked by \`npm test\`: a page that no longer matches the code fails the suite.

- [CLI](cli/README.md): every command and flag, one page per topic (from the oclif manifest).
- [Configuration](configuration.md): config file keys, where config files are found, environment variables (from the render options schema).
- [Error codes](errors.md): every code with its cause, its fix and its HTTP status (from \`ERROR_DOCS\`).
- [HTTP API of \`engine serve\`](http-api.md): routes, request bodies, events, statuses (from the request schemas).
- [TypeScript API](api.md): what \`html-video-engine\`, \`html-video-engine/plugin\` and the serverless companion \`html-video-engine-lambda\` export.

The map of all documentation: [../README.md](../README.md).
`

/** Map of path under docs/reference -> file content. */
export async function generateReference(root) {
  const files = new Map([['README.md', INDEX]])
  for (const part of [cliReference(root), await configReference(root), await errorsReference(root), await httpReference(root), apiReference(root), runtimeReference(root), await attributesReference(root), await variablesReference(root), await limitsReference(root)]) {
    for (const [path, text] of part) files.set(path, text)
  }
  return files
}
