import {extname} from 'node:path'
import {outputExtension} from '../encode/format-plugin.js'
import {listFormats} from '../encode/format-registry.js'
import {EngineError} from '../errors/engine-error.js'

/** The format whose files end in the output path's extension (`.webm` -> webm), if any does. */
function formatOfExtension(output: string): string | undefined {
  const extension = extname(output).toLowerCase()
  if (extension === '') return undefined
  return listFormats().find((format) => outputExtension(format)?.toLowerCase() === extension)?.name
}

/**
 * The format a render writes, given what the user asked for: `-o x.webm` alone means webm, and an
 * explicit format that contradicts a known output extension is an error rather than a file whose
 * name lies about its content. An extension no format writes (none, `.out`, a frame directory's
 * name) leaves the format as it was.
 */
export function formatForOutput(output: string | undefined, explicitFormat: string | undefined): string | undefined {
  const implied = output === undefined ? undefined : formatOfExtension(output)
  if (implied === undefined || explicitFormat === undefined || explicitFormat === implied) return explicitFormat ?? implied
  // An unknown format is reported as such by validation, with the list of known ones.
  if (!listFormats().some((format) => format.name === explicitFormat)) return explicitFormat
  throw new EngineError(
    'INVALID_FLAG',
    `--format ${explicitFormat} contradicts --output "${output}", a ${implied} file; drop --format to render ${implied}, or give the output the extension of ${explicitFormat}`,
    {format: explicitFormat, output, implied},
  )
}
