import {createHash} from 'node:crypto'
import {realpath} from 'node:fs/promises'
import {basename, dirname, join, relative, resolve} from 'node:path'
import type {AnyNode, Element} from 'domhandler'
import {EngineError} from '../errors/engine-error.js'
import {isHiddenPath, isInside} from '../sandbox/project-file.js'
import {projectRoot} from '../sandbox/project-root.js'
import {prepareFonts, type CompiledFonts} from '../fonts/prepare-fonts.js'
import {INSTANCE_ATTRIBUTE, type RuntimeInstance} from './runtime-instance.js'
import {resolveVariables} from '../variables/resolve-variables.js'
import {compileCaptions, type CompiledCaptions} from './compile-captions.js'
import {validateVariableValues, type VariableFinding} from '../variables/validate-values.js'
import type {VariableDeclaration} from '../variables/variable-declaration.js'
import {checkCompositionAttributes} from './check-composition-attributes.js'
import {findUnloadableResources, unloadableMessage, type UnloadableResource} from './find-unloadable-resources.js'
import {findMissingAssets, missingAssetMessage} from './find-missing-assets.js'
import {inlineProjectStylesheets} from './inline-stylesheets.js'
import {assertDepthWithinBudget, assertDurationWithinBudget, BudgetMeter, measureTree} from './compile-budget.js'
import {describeElement, isInsideTemplate} from './load-html.js'
import {parseComposition, type HostSource, type ParsedComposition} from './parse-composition.js'
import {parseVariableValues} from './parse-variable-values.js'
import {readCompositionFile} from './read-composition-file.js'
import {rebaseCssUrls, urlRebaser, type UrlRebaser} from './rebase-url.js'
import {isInlineClassicScript, scopeScript} from './scope-script.js'
import {ScriptLineMarkers, type ScriptLines} from './script-line-map.js'
import {scopeStylesheet} from './scope-stylesheet.js'
import {farProjectRootNotice} from './project-root-notice.js'

export interface CompileOptions {
  /** The command-line layer (`--variables` / `--variables-file`, parsed); applies to the top-level composition only. */
  variables?: Record<string, unknown>
  /** Findings become errors (the caller throws with `assertNoStrictErrors`). */
  strictVariables?: boolean
  /** Environment whose ENGINE_CACHE_DIR holds the font cache (default: this process's). */
  env?: NodeJS.ProcessEnv
  /**
   * The project the composition belongs to (default: `projectRoot` of the file; the server passes
   * its --root, Lambda the site). Sub-compositions outside it are refused.
   */
  projectDir?: string
  /** Fontsource package directories that come with the composition (a serverless site's fonts). */
  fontPackages?: readonly string[]
  /**
   * Download families a Google Fonts stylesheet asks for that are neither bundled nor cached, once,
   * into the font cache (see downloadGoogleFamilies). Off by default: compiling touches no network.
   */
  downloadFonts?: boolean
}

export interface CompiledComposition {
  /** Absolute path of the top-level file; the page must be loaded with its directory as base. */
  file: string
  /** The project directory: the page origin serves its files, and only those. */
  projectDir: string
  compositionId: string
  width: number
  height: number
  /**
   * The root's `data-duration`; undefined when it has none, and the render takes the length of the
   * page's registered timelines (timeComposition).
   */
  durationSeconds?: number
  /** The root's `data-fps` as written (`60`, `30000/1001`): the rate when no option names one; planRender checks it. */
  declaredFps?: string
  /** The root's `data-ready-timeout` in seconds: how long a capture waits for the page (and its holds) to be ready. */
  readyTimeoutSeconds?: number
  /** The top-level composition's declarations. */
  declarations: VariableDeclaration[]
  /** Resolved top-level values: declared defaults < command-line overrides. */
  variables: Record<string, unknown>
  /** One entry per inlined sub-composition, keyed by the host's `data-engine-instance`. */
  instances: Record<string, RuntimeInstance>
  /** The page, with every sub-composition inlined. */
  html: string
  /** Where the inline scripts of `html` were written, for error locations. */
  scriptLines: ScriptLines[]
  /** `undeclared` / `type-mismatch` / `enum-out-of-range`, from the command line and every host. */
  findings: VariableFinding[]
  /** What compile noticed and let pass (`declarations-invalid`): the render reports them as warnings. */
  notices: CompileNotice[]
  /** The fonts stage: each family and how it is drawn, the faces the page is served, font findings. */
  fonts: CompiledFonts
  /** Elements that show captions (`data-captions`, `data-captions-var`) and their cues, in document order. */
  captions?: CompiledCaptions[]
  /** Scripts and stylesheets the page names that are missing, remote, or on an address the sandbox refuses. */
  resources: UnloadableResource[]
  /** sha256 of every composition file the page was built from (top level and sub-compositions), by absolute path. */
  sourceFiles: Record<string, string>
}

/** A compiled composition whose length is known (written, or taken from its timelines). */
export type TimedComposition = CompiledComposition & {durationSeconds: number}

/** Something compile let pass that the author should hear about. */
export interface CompileNotice {
  code: 'declarations-invalid' | 'asset-missing' | 'resource-missing' | 'project-root-far'
  message: string
  /** `asset-missing`: the project path (`/assets/logo.png`), so that the render tells it once. */
  path?: string
}

const URL_ATTRIBUTES = ['src', 'href', 'poster', 'data-composition-src'] as const

interface CompileContext {
  rootDir: string
  projectDir: string
  strict: boolean
  instances: Record<string, RuntimeInstance>
  findings: VariableFinding[]
  notices: CompileNotice[]
  markers: ScriptLineMarkers
  sourceFiles: Record<string, string>
  budget: BudgetMeter
}

interface PendingHost {
  host: HostSource
  /** Absolute path and display name of the file the host is written in. */
  file: string
  display: string
  chain: string[]
}

/**
 * Compiles a composition for rendering: checks the root attributes and declarations, resolves the
 * variables, and inlines every sub-composition (recursively) into its host. Inside a host, the
 * sub-composition's root element is inserted with its attributes; its styles are wrapped in
 * `@scope`, its inline classic scripts run through `__engine.__runScoped`, and its relative URLs
 * are rebased onto the top-level file's directory. External scripts and stylesheet links of a
 * sub-composition are rebased but stay global; module scripts are left as they are. Content of a
 * sub-composition file outside its root element, other than styles, stylesheet links and scripts,
 * is not part of the composition and is dropped.
 */
export async function compileComposition(path: string, options: CompileOptions = {}): Promise<CompiledComposition> {
  const file = resolve(path)
  const source = await readCompositionFile(file, 'composition')
  const parsed = parseComposition(source, path)
  const problems = checkCompositionAttributes(parsed, {isRoot: true})
  if (problems.length > 0) {
    throw new EngineError('COMPOSITION_INVALID', `${path}: ${problems.map((problem) => problem.message).join('; ')}`, {file: path, problems})
  }
  if (parsed.duration.value !== undefined) assertDurationWithinBudget(parsed.duration.value, path)
  const budget = new BudgetMeter(path)
  budget.addElements(parsed.elementCount)
  const strict = options.strictVariables ?? false
  const notices = checkDeclarations(parsed, path, strict)
  const declarations = parsed.declarations.declarations
  const compositionId = parsed.id!
  const projectDir = resolve(options.projectDir ?? projectRoot(file))
  // A project the caller named (a server's --root, a site) was chosen on purpose.
  const farRoot = options.projectDir === undefined ? farProjectRootNotice(file, projectDir) : undefined
  if (farRoot) notices.push(farRoot)
  const context: CompileContext = {
    rootDir: dirname(file),
    projectDir,
    strict,
    instances: {},
    notices,
    markers: new ScriptLineMarkers(),
    sourceFiles: {[file]: sha256(source)},
    budget,
    findings: options.variables
      ? validateVariableValues(declarations, options.variables, {source: '--variables', compositionId, strict})
      : [],
  }
  parsed.$('script').each((_, element) => {
    if (isInlineClassicScript(element)) parsed.$(element).text(context.markers.mark(element, parsed.$(element).text(), basename(file)))
  })
  const pending: PendingHost[] = parsed.hosts.map((host) => ({host, file, display: path, chain: [file]}))
  // Depth first, in document order, so instance keys follow the order of hosts in the final page.
  let counter = 0
  while (pending.length > 0) {
    const next = pending.shift()!
    const nested = await inlineHost(next, `i${++counter}`, context)
    pending.unshift(...nested)
  }
  await inlineProjectStylesheets(parsed.$, {pageDir: context.rootDir, projectDir, sourceFiles: context.sourceFiles})
  for (const asset of await findMissingAssets(parsed.$, {pageDir: context.rootDir, projectDir})) {
    context.notices.push({code: 'asset-missing', message: missingAssetMessage(asset, projectDir), path: asset.path})
  }
  // Each file was within the depth budget; hosts nest them, so the page as a whole is checked too.
  assertDepthWithinBudget(measureTree(parsed.$.root()[0]).depth, path)
  const variables = resolveVariables(declarations, options.variables)
  const captions = await compileCaptions(parsed.$, {pageDir: context.rootDir, projectDir, variables})
  const fonts = await prepareFonts(parsed.$, {env: options.env, fontPackages: options.fontPackages, downloadFonts: options.downloadFonts})
  // After the fonts stage, which replaces the font stylesheets it serves itself.
  const resources = await findUnloadableResources(parsed.$, {pageDir: context.rootDir, projectDir})
  for (const resource of resources.filter((found) => found.kind === 'missing')) {
    context.notices.push({code: 'resource-missing', message: unloadableMessage(resource, projectDir), path: resource.detail})
  }
  const {html, lines: scriptLines} = context.markers.resolve(parsed.$.html())
  return {
    file,
    projectDir,
    compositionId,
    width: parsed.width.value!,
    height: parsed.height.value!,
    ...(parsed.duration.value !== undefined && {durationSeconds: parsed.duration.value}),
    ...(parsed.fps.raw !== undefined && {declaredFps: parsed.fps.raw.trim()}),
    ...(parsed.readyTimeout.value !== undefined && {readyTimeoutSeconds: parsed.readyTimeout.value}),
    declarations,
    variables,
    ...(captions.length > 0 && {captions}),
    instances: context.instances,
    html,
    scriptLines,
    findings: context.findings,
    notices: context.notices,
    fonts,
    resources,
    sourceFiles: context.sourceFiles,
  }
}

async function inlineHost({host, file, display, chain}: PendingHost, key: string, context: CompileContext): Promise<PendingHost[]> {
  const where = `${describeElement(host.element)} in ${display}${host.line === undefined ? '' : `:${host.line}`}`
  const subFile = resolve(dirname(file), host.src)
  const subDisplay = join(dirname(display), host.src)
  if (chain.includes(subFile)) {
    const names = [...chain.slice(chain.indexOf(subFile)), subFile].map((path) => relative(context.rootDir, path))
    throw new EngineError(
      'COMPOSITION_INVALID',
      `sub-composition cycle: ${names.join(' -> ')} (data-composition-src="${host.src}" on ${where}); a composition cannot include itself`,
      {chain: names},
    )
  }
  context.budget.addInstance(where)
  await assertInsideProject(subFile, context.projectDir, `data-composition-src="${host.src}" on ${where}`)
  const subSource = await readCompositionFile(subFile, `data-composition-src="${host.src}" on ${where}`)
  context.sourceFiles[subFile] = sha256(subSource)
  const sub = parseComposition(subSource, subDisplay)
  context.budget.addElements(sub.elementCount)
  const problems = checkCompositionAttributes(sub, {isRoot: false})
  if (problems.length > 0 || !sub.root) {
    throw new EngineError('COMPOSITION_INVALID', `${subDisplay} (included by ${where}): ${problems.map((problem) => problem.message).join('; ')}`, {
      file: subDisplay,
      problems,
    })
  }
  context.notices.push(...checkDeclarations(sub, subDisplay, context.strict))
  const hostValues = parseVariableValues(host.variableValuesRaw)
  if (!hostValues.ok) {
    throw new EngineError('COMPOSITION_INVALID', `data-variable-values on ${where} is ${hostValues.error}`, {file: display, line: host.line})
  }
  const declarations = sub.declarations.declarations
  context.findings.push(
    ...validateVariableValues(declarations, hostValues.values, {
      source: `data-variable-values on ${where}`,
      compositionId: sub.id,
      strict: context.strict,
    }),
  )
  context.instances[key] = {compositionId: sub.id!, variables: resolveVariables(declarations, hostValues.values)}

  scopeSubComposition(sub, key, urlRebaser(dirname(subFile), context.rootDir), (element, code) =>
    context.markers.mark(element, code, relative(context.rootDir, subFile)),
  )
  const content = compositionElement(sub)
  const ownTemplate = templateContentOf(content)
  const outside = (selector: string) =>
    sub.$(selector).filter((_, element) => !isWithin(element, content) && !isInsideTemplate(element, ownTemplate))
  const styles = outside('style, link[rel~="stylesheet" i]')
  const scripts = outside('script')
  sub.$(host.element).attr(INSTANCE_ATTRIBUTE, key).empty().append(styles, content, scripts)

  return sub.hosts.map((nested) => ({host: nested, file: subFile, display: subDisplay, chain: [...chain, subFile]}))
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

/**
 * Refuses declarations with errors. A value that is not an array of declarations declares nothing
 * and is only a notice, unless variables are strict.
 */
function checkDeclarations(parsed: ParsedComposition, display: string, strict: boolean): CompileNotice[] {
  const {problems} = parsed.declarations
  const errors = problems.filter((problem) => problem.severity === 'error')
  if (errors.length > 0) {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `${display}: invalid data-composition-variables:\n${errors.map((problem) => `  - ${problem.message}`).join('\n')}\nRun \`engine lint ${display}\` for details.`,
      {file: display, problems: errors},
    )
  }
  const invalid = problems.filter((problem) => problem.code === 'declarations-invalid')
  if (invalid.length > 0 && strict) {
    throw new EngineError(
      'STRICT_VARIABLES',
      `${display}: ${invalid[0].message}. --strict-variables refuses it: write the declarations as an array, or drop --strict-variables to render without them`,
      {file: display, problems: invalid},
    )
  }
  return invalid.map((problem) => ({code: 'declarations-invalid', message: `${display}: ${problem.message}`}))
}

/** Rebases URLs, scopes styles and scripts, in place, across the whole sub-composition document. */
function scopeSubComposition(sub: ParsedComposition, key: string, rebase: UrlRebaser, mark: (element: Element, code: string) => string): void {
  const {$} = sub
  for (const element of $('*').toArray() as Element[]) {
    for (const attribute of URL_ATTRIBUTES) {
      const value = element.attribs[attribute]
      if (value !== undefined) element.attribs[attribute] = rebase(value)
    }
    if (element.attribs.style !== undefined) element.attribs.style = rebaseCssUrls(element.attribs.style, rebase)
  }
  $('style').each((_, element) => {
    $(element).text(scopeStylesheet($(element).text(), key, rebase))
  })
  $('script').each((_, element) => {
    if (isInlineClassicScript(element)) $(element).text(scopeScript(mark(element, $(element).text()), key))
  })
}

/**
 * The element inserted into the host. When `<html>` itself is the composition element, a `<div>`
 * with its attributes takes its place and receives the body's content.
 */
function compositionElement(sub: ParsedComposition): Element {
  const root = sub.root!
  if (root !== sub.htmlElement) return root
  const {$} = sub
  const wrapper = $('<div></div>')
  for (const [name, value] of Object.entries(root.attribs)) wrapper.attr(name, value)
  wrapper.append($('body').contents())
  return wrapper[0] as Element
}

/** The `<template>` content the element sits in, if any: styles and scripts there belong to the composition. */
function templateContentOf(element: Element): AnyNode | null {
  for (let current = element.parent; current; current = current.parent) {
    if (current.type === 'root' && current.parent?.type === 'tag' && (current.parent as Element).name === 'template') return current
  }
  return null
}

function isWithin(node: AnyNode, ancestor: AnyNode): boolean {
  for (let current: AnyNode | null = node; current; current = current.parent) if (current === ancestor) return true
  return false
}

/**
 * A sub-composition must be a file of the project, symlinks resolved. The error is the same
 * whether or not such a file exists, so that compositions cannot probe the disk outside.
 */
async function assertInsideProject(path: string, projectDir: string, what: string): Promise<void> {
  const real = await realpath(path).catch(() => path)
  const realProject = await realpath(projectDir).catch(() => projectDir)
  if (isInside(projectDir, path) && isInside(realProject, real) && !isHiddenPath(projectDir, path) && !isHiddenPath(realProject, real)) return
  throw new EngineError(
    'PATH_OUTSIDE_ROOT',
    `${what} is outside the project ${projectDir} or a dot-file; a composition may include only files inside its project, and never dot-files or dot-folders`,
    {projectDir},
  )
}
