import {dirname} from 'node:path'
import {resolveVariables} from '../variables/resolve-variables.js'
import {captionsFromVariable, type CompiledCaptions} from './compile-captions.js'
import {validateVariableValues} from '../variables/validate-values.js'
import {compileComposition, type CompiledComposition, type CompileOptions} from './compile-composition.js'

/**
 * A compiled template with another top-level layer of values: the same result as compiling the
 * file again with `variables`, since parsing, inlining sub-compositions and resolving fonts do not
 * depend on the top-level values. `template` must be compiled without them and with the same
 * `strict` (its findings are then only those of sub-composition hosts, at that severity). A batch
 * compiles once and applies each row this way.
 */
export async function applyVariables(template: CompiledComposition, variables: Record<string, unknown> | undefined, strict = false): Promise<CompiledComposition> {
  const cliFindings = variables ? validateVariableValues(template.declarations, variables, {source: '--variables', compositionId: template.compositionId, strict}) : []
  const resolved = resolveVariables(template.declarations, variables)
  return {
    ...template,
    variables: resolved,
    findings: [...cliFindings, ...template.findings],
    ...(template.captions && {captions: await captionsWithValues(template, resolved)}),
  }
}

/** Captions that come from a variable (`data-captions-var`) are read again with these values: each row has its own. */
function captionsWithValues(template: CompiledComposition, variables: Record<string, unknown>): Promise<CompiledCaptions[]> {
  const context = {pageDir: dirname(template.file), projectDir: template.projectDir, variables}
  return Promise.all((template.captions ?? []).map((captions) => (captions.variable === undefined ? captions : captionsFromVariable(captions.variable, context))))
}

/** Compiles a composition file: compileComposition, or the same elsewhere (the server compiles in a worker thread). */
export type CompileFunction = (path: string, options: CompileOptions) => Promise<CompiledComposition>

/** The render's compiled composition: `template` with the values applied when there is one, else the file compiled now. */
export function compileOrApply(path: string, options: CompileOptions & {template?: CompiledComposition; compile?: CompileFunction}): Promise<CompiledComposition> {
  const {template, compile = compileComposition, ...compileOptions} = options
  return template ? applyVariables(template, compileOptions.variables, compileOptions.strictVariables) : compile(path, compileOptions)
}
