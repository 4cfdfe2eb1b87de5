import {readFile, stat} from 'node:fs/promises'
import {relative, resolve} from 'node:path'
import type {CheerioAPI} from 'cheerio'
import type {CaptionCue} from '../captions/cue.js'
import {MAX_CAPTION_BYTES, parseCaptions} from '../captions/parse-captions.js'
import {EngineError} from '../errors/engine-error.js'
import {isInside, projectFile} from '../sandbox/project-file.js'

/** The attribute compile gives each captions element: its index in the runtime config's `captions`. */
export const CAPTIONS_KEY_ATTRIBUTE = 'data-engine-captions'

/** One element that shows captions, and the cues it shows. */
export interface CompiledCaptions {
  /** Where the cues came from, for messages and the plan (`captions.vtt`, `variable "subs"`). */
  source: string
  /** The variable the cues come from (`data-captions-var`): a row with other values reads them again. */
  variable?: string
  cues: CaptionCue[]
}

export interface CaptionsContext {
  /** The composition's folder: paths are relative to it, as an `<img src>` is. */
  pageDir: string
  projectDir: string
  /** The top-level composition's resolved variables. */
  variables: Record<string, unknown>
}

/**
 * Finds the elements that show captions, `data-captions="captions.vtt"` (a project file) or
 * `data-captions-var="subs"` (a string variable holding a project file's path, or the WebVTT or
 * SubRip text itself), reads and checks their cues, and marks each element with its index for the
 * runtime, which writes the cue text on screen at each frame. Mutates `$`.
 */
export async function compileCaptions($: CheerioAPI, context: CaptionsContext): Promise<CompiledCaptions[]> {
  const compiled: CompiledCaptions[] = []
  for (const element of $('[data-captions], [data-captions-var]').toArray()) {
    const node = $(element)
    const path = node.attr('data-captions')
    const variable = node.attr('data-captions-var')
    const loaded = path !== undefined ? await readCaptionFile(path, 'data-captions', context) : await captionsFromVariable(variable ?? '', context)
    node.attr(CAPTIONS_KEY_ATTRIBUTE, String(compiled.length))
    compiled.push(loaded)
  }
  return compiled
}

/**
 * The cues a `data-captions-var` variable gives: none when it is unset or empty (a row without
 * captions), else the cue text it holds or the project file it names.
 */
export async function captionsFromVariable(name: string, context: CaptionsContext): Promise<CompiledCaptions> {
  const value = context.variables[name]
  const label = `variable "${name}"`
  if (value === undefined || value === null || value === '') return {source: label, variable: name, cues: []}
  if (typeof value !== 'string') {
    throw new EngineError(
      'COMPOSITION_INVALID',
      `data-captions-var="${name}": the variable "${name}" is ${JSON.stringify(value)}, not a string; declare it as a string variable holding a caption file's path or WebVTT/SubRip text`,
      {variable: name},
    )
  }
  // Cue text has a timing arrow; a path never does.
  if (value.includes('-->')) return {source: label, variable: name, cues: parseCaptions(value, {label, field: `the value of "${name}"`})}
  return {...(await readCaptionFile(value, label, context)), variable: name}
}

/** A caption file of the project, symlinks resolved: never a file outside it, a dot-file or a URL. */
async function readCaptionFile(path: string, field: string, context: CaptionsContext): Promise<CompiledCaptions> {
  const outside = () =>
    new EngineError(
      'PATH_OUTSIDE_ROOT',
      `${field}: "${path}" is not a file inside the project ${context.projectDir} (captions come from project files; no URLs, dot-files or paths outside it); copy the file into the project and name it relative to the composition`,
      {field, path, projectDir: context.projectDir},
    )
  if (/^[a-z][a-z0-9+.-]*:/i.test(path)) throw outside()
  const lexical = resolve(context.pageDir, path)
  if (!isInside(resolve(context.projectDir), lexical)) throw outside()
  const found = await projectFile(context.projectDir, '/' + relative(resolve(context.projectDir), lexical).split('\\').join('/'))
  if (found.kind === 'outside' || found.kind === 'hidden') throw outside()
  if (found.kind === 'missing') {
    throw new EngineError('COMPOSITION_INVALID', `${field}: the caption file "${path}" does not exist; create it, or fix the path (relative to the composition's folder)`, {field, path})
  }
  const {size} = await stat(found.path)
  if (size > MAX_CAPTION_BYTES) {
    throw new EngineError('CAPTIONS_INVALID', `${field}: "${path}" is ${size} bytes, more than the ${MAX_CAPTION_BYTES} a caption file may have`, {field, path, bytes: size})
  }
  const label = relative(context.projectDir, found.path)
  return {source: label, cues: parseCaptions(await readFile(found.path, 'utf8'), {label, field})}
}
