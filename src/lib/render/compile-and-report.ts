import {compileOrApply, type CompileFunction} from '../compose/apply-variables.js'
import type {CompiledComposition} from '../compose/compile-composition.js'
import {FontReporter} from '../fonts/font-findings.js'
import type {ResolvedRenderOptions} from '../plan/render-options.js'
import {assertNoStrictErrors} from '../variables/strict-variables.js'
import {assertImageValues} from '../variables/image-values.js'
import {dirname} from 'node:path'
import {assertResourcesLoadable} from './check-page-resources.js'
import type {RenderEvent} from './render-events.js'

export interface CompileRequest {
  composition: string
  variables?: Record<string, unknown>
  projectDir?: string
  fontPackages?: readonly string[]
  template?: CompiledComposition
  compile?: CompileFunction
}

export type Warn = (warning: {code: string; message: string; level?: 'info'}) => void

/**
 * The first stage of a video render and of a still alike: compile the file (or apply the row's
 * values to its template), refuse under --strict-variables, and report every finding once, so
 * that both say the same things about the same composition.
 */
export async function compileAndReport(
  request: CompileRequest,
  options: Pick<ResolvedRenderOptions, 'strictVariables' | 'strictFonts' | 'network' | 'allowPrivateNetwork'>,
  emit: (event: RenderEvent) => void,
  signal?: AbortSignal,
): Promise<{compiled: CompiledComposition; warn: Warn; fonts: FontReporter}> {
  const compiled = await compileOrApply(request.composition, {
    template: request.template,
    compile: request.compile,
    variables: request.variables,
    strictVariables: options.strictVariables,
    projectDir: request.projectDir,
    fontPackages: request.fontPackages,
    downloadFonts: options.network !== false,
  })
  if (options.strictVariables) assertNoStrictErrors(compiled.findings)
  const network = {publicUrls: options.network !== false, privateAddresses: options.allowPrivateNetwork === true}
  assertResourcesLoadable(compiled, network)
  // An image the page cannot load would draw a blank box: refuse it before a browser starts.
  await assertImageValues(compiled.declarations, compiled.variables, {projectDir: compiled.projectDir, pageDir: dirname(compiled.file), network, signal})
  for (const finding of compiled.findings) emit({type: 'warning', code: finding.code, message: finding.message})
  for (const notice of compiled.notices) emit({type: 'warning', code: notice.code, message: notice.message})
  const warn: Warn = (warning) => emit({type: 'warning', ...warning})
  const fonts = new FontReporter(compiled.fonts, options.strictFonts, warn)
  fonts.compile()
  return {compiled, warn, fonts}
}
