import {z} from 'zod'

/**
 * The spec's five types plus `image` (a URL or a project path, checked before rendering and
 * preloaded before the first frame: see image-values.ts). Any other type is dropped, as the spec says.
 */
export const VARIABLE_TYPES = ['string', 'number', 'color', 'boolean', 'enum', 'image'] as const
export type VariableType = (typeof VARIABLE_TYPES)[number]

export const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/

const base = {
  id: z.string().min(1, 'must be a non-empty string').describe('Name of the variable, unique in the composition: the key of --variables, a rows-file column, getVariables()'),
  label: z.string().describe('What an editing UI (engine preview) shows beside the control'),
}

const stringVariable = z.object({
  ...base,
  type: z.literal('string'),
  default: z.string(),
  placeholder: z.string().optional().describe('Hint an editing UI shows in an empty field'),
  maxLength: z.number().int().nonnegative().optional().describe('Longest value an editing UI accepts; a longer value is still passed to the page'),
})

const numberVariable = z.object({
  ...base,
  type: z.literal('number'),
  default: z.number().refine(Number.isFinite, 'must be a finite number'),
  min: z.number().optional().describe('Smallest value for an editing UI (engine preview draws a slider with min and max)'),
  max: z.number().optional().describe('Largest value for an editing UI'),
  step: z.number().positive().optional().describe('Step of the slider'),
  unit: z.string().optional().describe('Unit shown beside the value'),
})

const colorVariable = z.object({
  ...base,
  type: z.literal('color'),
  default: z.string().regex(COLOR_PATTERN, 'must be a #rrggbb color').describe('A #rrggbb color'),
})

const booleanVariable = z.object({...base, type: z.literal('boolean'), default: z.boolean()})

/** `default` may be "" (no image); otherwise an http(s) URL or a path in the project, relative to the composition file. */
const imageVariable = z.object({...base, type: z.literal('image'), default: z.string().describe('An http(s) URL, a path in the project relative to the composition, or "" for no image')})

const enumOption = z.object({value: z.string(), label: z.string()})

const enumVariable = z.object({
  ...base,
  type: z.literal('enum'),
  default: z.string(),
  options: z.array(enumOption).min(1, 'must list at least one option').describe('The values allowed, each with the label an editing UI shows; default must be one of them'),
})

/** One declaration of `data-composition-variables`, after validation; unknown keys are stripped. */
export const variableDeclarationSchema = z.discriminatedUnion('type', [
  stringVariable,
  numberVariable,
  colorVariable,
  booleanVariable,
  enumVariable,
  imageVariable,
])

export type VariableDeclaration = z.infer<typeof variableDeclarationSchema>
export type EnumVariableDeclaration = z.infer<typeof enumVariable>

export function isVariableType(value: unknown): value is VariableType {
  return typeof value === 'string' && (VARIABLE_TYPES as readonly string[]).includes(value)
}

/** Human wording of what a value of this declaration must look like. */
export function describeExpected(declaration: VariableDeclaration): string {
  switch (declaration.type) {
    case 'color':
      return 'a "#rrggbb" color string'
    case 'enum':
      return `one of ${declaration.options.map((option) => JSON.stringify(option.value)).join(', ')}`
    case 'boolean':
      return 'true or false'
    case 'image':
      return 'an image: an http(s) URL or a path in the project (a string)'
    default:
      return `a ${declaration.type}`
  }
}

export function defaultValues(declarations: readonly VariableDeclaration[]): Record<string, unknown> {
  return Object.fromEntries(declarations.map((declaration) => [declaration.id, declaration.default]))
}
