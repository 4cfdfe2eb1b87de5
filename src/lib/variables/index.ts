export {
  COLOR_PATTERN,
  defaultValues,
  describeExpected,
  isVariableType,
  VARIABLE_TYPES,
  variableDeclarationSchema,
  type EnumVariableDeclaration,
  type VariableDeclaration,
  type VariableType,
} from './variable-declaration.js'
export {DECLARATION_PROBLEM_CODES, parseDeclarations, type DeclarationProblem, type DeclarationProblemCode, type ParsedDeclarations} from './parse-declarations.js'
export {validateVariableValues, type ValidateValuesOptions, type VariableFinding, type VariableFindingCode} from './validate-values.js'
export {resolveVariables} from './resolve-variables.js'
export {assertNoStrictErrors} from './strict-variables.js'
export {loadVariableOverrides, parseVariablesText, readVariablesFile, type VariableOverrideInput} from './read-overrides.js'
export {declarationsJsonSchema, declarationsSchemaFile, DECLARATIONS_SCHEMA_PATH} from './declarations-schema.js'
