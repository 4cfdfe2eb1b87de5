import {basename, dirname, join} from 'node:path'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {defaultOutputPath} from '../render/output-path.js'

/** Longest text one placeholder contributes, so that a long title still makes a legal file name. */
export const MAX_PLACEHOLDER_LENGTH = 100

const PLACEHOLDER = /\{([^{}]+)\}/g

/** `{index}` is the row's position in the batch file, counted from 0. */
export const INDEX_PLACEHOLDER = 'index'

export type TemplateFill = {ok: true; path: string} | {ok: false; problems: Array<{field: string; reason: string}>}

/**
 * Without `--output`, a batch writes `renders/<name>-{index}.<ext>` (a directory for
 * png-sequence), next to where a single render would go.
 */
export function defaultOutputTemplate(compositionPath: string, format: FormatPlugin, cwd: string = process.cwd()): string {
  const single = defaultOutputPath(compositionPath, format, cwd)
  const extension = outputExtension(format) ?? ''
  const stem = basename(single, extension)
  return join(dirname(single), `${stem}-{${INDEX_PLACEHOLDER}}${extension}`)
}

/** Names of the placeholders in a template, in order of appearance, without repeats. */
export function templatePlaceholders(template: string): string[] {
  return [...new Set([...template.matchAll(PLACEHOLDER)].map((match) => match[1]))]
}

/**
 * Fills `{index}` and `{<key>}` from one row. A key the row lacks, or whose value is not a string,
 * number or boolean, cannot fill its placeholder; every such placeholder is reported, under `flag`
 * (the option the template came from).
 */
export function fillOutputTemplate(template: string, index: number, row: Record<string, unknown>, flag = '--output'): TemplateFill {
  const problems: Array<{field: string; reason: string}> = []
  const path = template.replace(PLACEHOLDER, (whole, key: string) => {
    if (key === INDEX_PLACEHOLDER) return String(index)
    const reason = unfillableReason(row, key)
    if (reason) {
      problems.push({field: `${flag} ${whole}`, reason})
      return whole
    }
    return sanitizeFileNamePart(String(row[key]))
  })
  return problems.length === 0 ? {ok: true, path} : {ok: false, problems}
}

function unfillableReason(row: Record<string, unknown>, key: string): string | undefined {
  if (!Object.hasOwn(row, key)) return `the row has no "${key}" key; add it to every row or remove the placeholder`
  const value = row[key]
  if (value === null || !['string', 'number', 'boolean'].includes(typeof value)) {
    const kind = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : `a ${typeof value}`
    return `"${key}" is ${kind}; only a string, number or boolean can name a file`
  }
  if (sanitizeFileNamePart(String(value)) === '') return `"${key}" is empty; a file name part needs at least one character`
  return undefined
}

/**
 * Makes a row value safe inside one path segment: path separators, characters that some file
 * systems refuse, and control characters become `_`; a run of dots becomes `_`, so no value can
 * climb out of the template's directory with `..`; the result is cut to MAX_PLACEHOLDER_LENGTH.
 */
export function sanitizeFileNamePart(value: string): string {
  return value
    .trim()
    .replace(/[/\\<>:"|?*\u0000-\u001f\u007f]/g, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^\.$/, '_')
    .slice(0, MAX_PLACEHOLDER_LENGTH)
}
