/**
 * The types-only entry (`<package>/plugin-types`): every type of the plugin API and nothing that
 * runs, for plugins written in plain JavaScript (JSDoc `import('…/plugin-types')`) or TypeScript
 * (`import type`). A plugin gets the API's functions from its hook's `options.api`.
 */
export type * from './index.js'
