import {resolveVariables} from '../variables/resolve-variables.js'
import {validateVariableValues} from '../variables/validate-values.js'
import {compileComposition, type CompiledComposition, type CompileOptions} from './compile-composition.js'

/**
 * A compiled template with another top-level layer of values: the same result as compiling the
 * file again with `variables`, since parsing, inlining sub-compositions and resolving fonts do not
 * depend on the top-level values. `template` must be compiled without them and with the same
 * `strict` (its findings are then only those of sub-composition hosts, at that severity). A batch
 * compiles once and applies each row this way.
 */
export function applyVariables(template: CompiledComposition, variables: Record<string, unknown> | undefined, strict = false): CompiledComposition {
  const cliFindings = variables ? validateVariableValues(template.declarations, variables, {source: '--variables', compositionId: template.compositionId, strict}) : []
  return {
    ...template,
    variables: resolveVariables(template.declarations, variables),
    findings: [...cliFindings, ...template.findings],
  }
}

/** Compiles a composition file: compileComposition, or the same elsewhere (the server compiles in a worker thread). */
export type CompileFunction = (path: string, options: CompileOptions) => Promise<CompiledComposition>

/** The render's compiled composition: `template` with the values applied when there is one, else the file compiled now. */
export function compileOrApply(path: string, options: CompileOptions & {template?: CompiledComposition; compile?: CompileFunction}): Promise<CompiledComposition> {
  const {template, compile = compileComposition, ...compileOptions} = options
  return template ? Promise.resolve(applyVariables(template, compileOptions.variables, compileOptions.strictVariables)) : compile(path, compileOptions)
}
