import {readFile} from 'node:fs/promises'
import {dirname, join, resolve} from 'node:path'
import {compileComposition} from '../compose/compile-composition.js'
import {unloadableMessage} from '../compose/find-unloadable-resources.js'
import {isEngineError} from '../errors/engine-error.js'
import {describeElement, lineOf} from '../compose/load-html.js'
import {parseComposition, type HostSource, type ParsedComposition} from '../compose/parse-composition.js'
import {parseVariableValues} from '../compose/parse-variable-values.js'
import {readCompositionFile} from '../compose/read-composition-file.js'
import {validateVariableValues} from '../variables/validate-values.js'
import type {LintFinding} from './lint-codes.js'
import {lintFile} from './lint-file.js'

export interface LintOptions {
  /** The intended output format has alpha (mov, webm, png-sequence): warn about html/body backgrounds. */
  alpha?: boolean
  /** The intended output format's rate cap and name (gif: 30): a higher data-fps is a note. */
  maxFps?: number
  format?: string
}

/**
 * Static checks of a composition and, recursively, of the sub-compositions it includes (each
 * file once). Findings name the file as the user would: `path` as given, sub-compositions joined
 * onto it. A missing top-level file is a COMPOSITION_NOT_FOUND error, not a finding.
 */
export async function lintComposition(path: string, options: LintOptions = {}): Promise<LintFinding[]> {
  const findings: LintFinding[] = []
  const parsedFiles = new Map<string, ParsedComposition | undefined>()

  const visit = async (file: string, display: string, source: string, chain: string[]): Promise<ParsedComposition> => {
    const parsed = parseComposition(source, display)
    parsedFiles.set(file, parsed)
    findings.push(...lintFile(parsed, display, {isRoot: chain.length === 0, alpha: options.alpha, maxFps: options.maxFps, format: options.format}))
    for (const host of parsed.hosts) {
      await visitHost(host, file, display, [...chain, file])
    }
    return parsed
  }

  const visitHost = async (host: HostSource, file: string, display: string, chain: string[]) => {
    const add = (finding: Omit<LintFinding, 'file' | 'severity'>) => findings.push({...finding, severity: 'error', file: display})
    const where = describeElement(host.element)
    const values = parseVariableValues(host.variableValuesRaw)
    if (!values.ok) {
      add({code: 'variable-values-malformed', message: `data-variable-values on ${where} is ${values.error}`, line: lineOf(host.element, 'data-variable-values')})
    }
    const subFile = resolve(dirname(file), host.src)
    const subDisplay = join(dirname(display), host.src)
    const srcLine = lineOf(host.element, 'data-composition-src')
    if (chain.includes(subFile)) {
      add({code: 'sub-composition-cycle', message: `data-composition-src="${host.src}" on ${where} includes ${subDisplay}, which is already being included: a composition cannot include itself`, line: srcLine})
      return
    }
    let sub = parsedFiles.get(subFile)
    if (!parsedFiles.has(subFile)) {
      const source = await readOptional(subFile)
      sub = source === undefined ? undefined : await visit(subFile, subDisplay, source, chain)
      parsedFiles.set(subFile, sub)
    }
    if (!sub) {
      add({code: 'sub-composition-not-found', message: `data-composition-src="${host.src}" on ${where}: ${subDisplay} does not exist`, line: srcLine})
      return
    }
    if (!values.ok) return
    const valueFindings = validateVariableValues(sub.declarations.declarations, values.values, {
      source: `data-variable-values on ${where}`,
      compositionId: sub.id,
    })
    for (const finding of valueFindings) {
      add({code: `variable-values-${finding.code}`, message: finding.message, line: lineOf(host.element, 'data-variable-values')})
    }
  }

  const file = resolve(path)
  await visit(file, path, await readCompositionFile(file, 'composition'), [])
  if (!findings.some((finding) => finding.severity === 'error')) findings.push(...(await compiledFindings(file, path)))
  // Files in the order they were first reached, each file's findings by line.
  const fileOrder = [...new Set(findings.map((finding) => finding.file))]
  const rank = (finding: LintFinding) => fileOrder.indexOf(finding.file)
  return findings.sort((a, b) => rank(a) - rank(b) || (a.line ?? 0) - (b.line ?? 0))
}

/**
 * What only the compiled page shows (only for a composition that compiles: errors come first):
 * families the fonts stage cannot resolve, and images it names that are not in the project.
 */
async function compiledFindings(file: string, display: string): Promise<LintFinding[]> {
  let compiled
  try {
    compiled = await compileComposition(file)
  } catch (error) {
    // Over a compile budget (too many instances, say) the composition cannot render: say so.
    if (isEngineError(error) && error.code === 'LIMIT_EXCEEDED') throw error
    if (isCaptionsError(error)) return [{code: 'captions-invalid', severity: 'error', message: error.message, file: display}]
    return []
  }
  // A substitution is drawn on purpose: `engine fonts resolve` shows it, it is no finding.
  const fonts = compiled.fonts.findings
    .filter((finding) => finding.code !== 'font-substituted')
    .map((finding): LintFinding => ({code: finding.code === 'font-fallback' ? 'font-unresolved' : 'font-url-unreadable', severity: 'warning', message: finding.message, file: display}))
  const assets = compiled.notices
    .filter((notice) => notice.code === 'asset-missing')
    .map((notice): LintFinding => ({code: 'asset-missing', severity: 'warning', message: notice.message, file: display}))
  const resources = compiled.resources.map((resource): LintFinding => ({
    code: `resource-${resource.kind}`,
    severity: resource.kind === 'refused' ? 'error' : 'warning',
    message: unloadableMessage(resource, compiled.projectDir),
    file: display,
  }))
  return [...assets, ...resources, ...fonts]
}

/** A caption file that does not parse, or a caption path compile refused (those name their `field`). */
function isCaptionsError(error: unknown): error is Error {
  if (!isEngineError(error)) return false
  const field = (error.details as {field?: unknown} | undefined)?.field
  return error.code === 'CAPTIONS_INVALID' || (typeof field === 'string' && /^(data-captions|variable ")/.test(field))
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8')
  } catch {
    return undefined
  }
}
