import {readFile} from 'node:fs/promises'
import {text as streamText} from 'node:stream/consumers'
import {EngineError} from '../errors/engine-error.js'

export interface VariableOverrideInput {
  /** `--variables`: JSON object text. */
  variables?: string
  /** `--variables-file`: path of a JSON file holding an object (`-`: standard input). */
  variablesFile?: string
}

/** Parses `--variables` JSON text into an object, or an INVALID_VARIABLES error naming the flag. */
export function parseVariablesText(text: string, origin = '--variables'): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new EngineError(
      'INVALID_VARIABLES',
      `${origin}: not valid JSON (${(error as Error).message}); pass an object such as '{"title": "Hello"}'`,
      {origin},
    )
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    const got = json === null ? 'null' : Array.isArray(json) ? 'an array' : `a ${typeof json}`
    throw new EngineError('INVALID_VARIABLES', `${origin}: must be a JSON object of variable values, got ${got}; for example '{"title": "Hello"}'`, {
      origin,
    })
  }
  return json as Record<string, unknown>
}

/** Reads and parses `--variables-file`; `field` names where the path was written. */
export async function readVariablesFile(path: string, field = '--variables-file'): Promise<Record<string, unknown>> {
  let text: string
  try {
    text = path === '-' ? await streamText(process.stdin) : await readFile(path, 'utf8')
  } catch (error) {
    throw new EngineError('INVALID_VARIABLES', `${field}: cannot read "${path}" (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {
      path,
    })
  }
  return parseVariablesText(text, `${field} "${path}"`)
}

/**
 * The command-line layer of variable values. Both flags may be given: the file is read first and
 * the `--variables` text overrides it key by key, since the inline text is the more specific input.
 */
export async function loadVariableOverrides(input: VariableOverrideInput): Promise<Record<string, unknown> | undefined> {
  if (input.variables === undefined && input.variablesFile === undefined) return undefined
  const fromFile = input.variablesFile === undefined ? {} : await readVariablesFile(input.variablesFile)
  const fromText = input.variables === undefined ? {} : parseVariablesText(input.variables)
  return {...fromFile, ...fromText}
}
