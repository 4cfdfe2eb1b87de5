import {extname} from 'node:path'
import {outputExtension, type FormatPlugin} from '../encode/format-plugin.js'
import {getFormat, listFormats} from '../encode/format-registry.js'
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
 * name lies about its content. An extension no format writes leaves the format as it was; the
 * render refuses it (assertOutputExtension), a still names its image format by it.
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

/**
 * A render's output file must end in its format's extension: `-o out.avi` would otherwise hold
 * MP4 bytes under a name that promises something else. A path without an extension is taken as
 * written, and a format that writes a directory (png-sequence) accepts any name.
 */
export function assertOutputExtension(output: string | undefined, formatName: string): void {
  if (output === undefined) return
  const format: FormatPlugin = getFormat(formatName)
  const wanted = outputExtension(format)
  const extension = extname(output).toLowerCase()
  if (wanted === undefined || extension === '' || extension === wanted.toLowerCase()) return
  const known = listFormats().flatMap((candidate) => {
    const ext = outputExtension(candidate)
    return ext === undefined ? [] : [`${ext} (${candidate.name})`]
  })
  throw new EngineError(
    'INVALID_FLAG',
    `--output "${output}": no format writes ${extension} files; known extensions are ${known.join(', ')}. Give the output one of them (--format then follows it), or ${wanted} to render ${format.name}`,
    {output, extension, format: format.name, known},
  )
}
