import {z} from 'zod'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'

/**
 * Where a render's output goes and how it is served, beside its pixels: another bucket than the
 * stack's (`outputBucket`), the file name a browser saves it under (`downloadName`, sent as
 * Content-Disposition) and when it is deleted (`deleteAfter`, a tag the bucket's lifecycle rules
 * expire). One module so that the CLI, the SDK and the handler check them alike.
 */

/** `--delete-after` values: each has a lifecycle rule (deploy writes them) that expires objects tagged with it. */
export const DELETE_AFTER = ['1d', '7d', '30d'] as const
export type DeleteAfter = (typeof DELETE_AFTER)[number]
/** The tag an output carries; the lifecycle rules filter on its value. */
export const DELETE_AFTER_TAG = 'engine-delete-after'

/** The most bytes of a file name most file systems keep. */
const MAX_DOWNLOAD_NAME_BYTES = 255

/** Why `name` cannot be a download file name, or undefined when it can. */
export function downloadNameProblem(name: string): string | undefined {
  if (name.trim() === '') return 'is empty; pass a file name such as video.mp4'
  if (Buffer.byteLength(name, 'utf8') > MAX_DOWNLOAD_NAME_BYTES) return `is ${Buffer.byteLength(name, 'utf8')} bytes long; a file name has at most ${MAX_DOWNLOAD_NAME_BYTES}`
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return 'contains a control character; pass a plain file name'
  if (/[/\\]/.test(name)) return 'contains a path separator (/ or \\); pass a file name, not a path'
  if (name === '.' || name === '..') return 'is not a file name'
  return undefined
}

/** The name as given, or an INVALID_FLAG error naming `field` (`--download-name`, `downloadName`). */
export function assertDownloadName(name: string, field: string): string {
  const problem = downloadNameProblem(name)
  if (problem) throw new EngineError('INVALID_FLAG', `${field}: ${JSON.stringify(name.slice(0, 300))} ${problem}`, {field, value: name.slice(0, 300)})
  return name
}

/**
 * `attachment` with the name, per RFC 6266: `filename` holds an ASCII stand-in (non-ASCII as `_`,
 * quotes and backslashes escaped) for old clients, and `filename*` the exact name in UTF-8,
 * percent-encoded as RFC 5987 asks (everything but its attr-chars). Written here, not with the
 * content-disposition package: it is these few lines, and the Lambda bundle carries no extra module.
 */
export function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&')
  if (!/[^\x20-\x7e]/.test(name)) return `attachment; filename="${ascii}"`
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`)
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`
}

/**
 * Why `name` is not a bucket name S3 accepts (its general-purpose naming rules), or undefined:
 * 3-63 characters of lowercase letters, digits, dots and hyphens, starting and ending with a
 * letter or digit, no two dots in a row, not shaped like an IP address, no reserved prefix or suffix.
 */
export function bucketNameProblem(name: string): string | undefined {
  if (name.length < 3 || name.length > 63) return `is ${name.length} characters long; a bucket name has 3 to 63`
  if (!/^[a-z0-9][a-z0-9.-]*[a-z0-9]$/.test(name)) return 'is not a bucket name: lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit'
  if (name.includes('..')) return 'has two dots in a row'
  if (/^\d+\.\d+\.\d+\.\d+$/.test(name)) return 'is shaped like an IP address'
  if (/^(xn--|sthree-|amzn-s3-demo-)/.test(name) || /(-s3alias|--ol-s3|--x-s3|--table-s3)$/.test(name)) return 'uses a prefix or suffix S3 reserves'
  return undefined
}

export function assertBucketName(name: string, field: string): string {
  const problem = bucketNameProblem(name)
  if (problem) throw new EngineError('INVALID_FLAG', `${field}: "${name.slice(0, 100)}" ${problem}`, {field, value: name.slice(0, 100)})
  return name
}

export function assertDeleteAfter(value: string, field: string): DeleteAfter {
  if ((DELETE_AFTER as readonly string[]).includes(value)) return value as DeleteAfter
  throw new EngineError('INVALID_FLAG', `${field}: "${value.slice(0, 40)}" is not a retention; pass one of ${DELETE_AFTER.join(', ')} (the lifecycle rules deploy writes)`, {
    field,
    value: value.slice(0, 40),
    choices: DELETE_AFTER,
  })
}

/** The same checks as zod refinements, for the SDK's config (validateConfig names the field). */
export const downloadNameSchema = z.string().superRefine((name, context) => {
  const problem = downloadNameProblem(name)
  if (problem) context.addIssue({code: 'custom', message: problem})
})
export const bucketNameSchema = z.string().superRefine((name, context) => {
  const problem = bucketNameProblem(name)
  if (problem) context.addIssue({code: 'custom', message: problem})
})
export const deleteAfterSchema = z.enum(DELETE_AFTER)

export interface OutputSettings {
  outputBucket?: string
  downloadName?: string
  deleteAfter?: DeleteAfter
  /** Replace what is already at the output key (`--overwrite`); see output-taken.ts. */
  overwrite?: boolean
}

/** The headers an output object is written with: Content-Disposition and the deletion tag. */
export function outputObjectHeaders(settings: OutputSettings): {ContentDisposition?: string; Tagging?: string} {
  return {
    ...(settings.downloadName !== undefined && {ContentDisposition: contentDisposition(settings.downloadName)}),
    ...(settings.deleteAfter !== undefined && {Tagging: `${DELETE_AFTER_TAG}=${settings.deleteAfter}`}),
  }
}

/** One lifecycle rule per `--delete-after` value: objects tagged with it expire that many days after they were written. */
export function deleteAfterRules(): {ID: string; Status: 'Enabled'; Filter: {Tag: {Key: string; Value: string}}; Expiration: {Days: number}}[] {
  return DELETE_AFTER.map((value) => ({
    ID: `${DELETE_AFTER_TAG}-${value}`,
    Status: 'Enabled',
    Filter: {Tag: {Key: DELETE_AFTER_TAG, Value: value}},
    Expiration: {Days: Number.parseInt(value, 10)},
  }))
}

/** A config's output settings, or undefined when it has none. */
export function outputSettingsOf(config: OutputSettings): OutputSettings | undefined {
  const {outputBucket, downloadName, deleteAfter} = config
  if (outputBucket === undefined && downloadName === undefined && deleteAfter === undefined) return undefined
  return {...(outputBucket !== undefined && {outputBucket}), ...(downloadName !== undefined && {downloadName}), ...(deleteAfter !== undefined && {deleteAfter})}
}
