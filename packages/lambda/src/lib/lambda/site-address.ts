import {z} from 'zod'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {storageKeyProblem} from 'html-video-engine/internal/lib/render/storage-key.js'

/** A site's content address (siteIdOf): 24 hex digits. */
export const SITE_ID_PATTERN = /^[0-9a-f]{24}$/

const SITE_ID_RULE = 'is not a Site ID (24 hex characters, as printed by `engine lambda sites create` and listed by `engine lambda sites ls`)'

/**
 * Why `entry` cannot name a composition of a site, or undefined: it must be a relative path of
 * names inside the site (no `..`, `.`, empty or absolute segments, no dot-files, which sites never
 * hold). Whether the file exists is a separate question with one answer (see siteEntryPath).
 */
export function siteEntryProblem(entry: string): string | undefined {
  const problem = storageKeyProblem(entry)
  if (problem) return problem
  if (entry.split('/').some((segment) => segment.startsWith('.'))) return 'names a dot-file or dot-folder'
  return undefined
}

export const siteIdSchema = z.string().regex(SITE_ID_PATTERN, SITE_ID_RULE)

const ENTRY_FIX = 'name the composition by its path inside the site, such as index.html'

export const siteEntrySchema = z.string().superRefine((entry, context) => {
  const problem = siteEntryProblem(entry)
  if (problem) context.addIssue({code: 'custom', message: `"${entry.slice(0, 80)}" ${problem}; ${ENTRY_FIX}`})
})

/** Throws INVALID_FLAG naming `field` unless `entry` may name a composition of a site. */
export function assertSiteEntry(entry: string, field: string): string {
  const problem = siteEntryProblem(entry)
  if (problem) throw new EngineError('INVALID_FLAG', `${field}: "${entry.slice(0, 200)}" ${problem}; ${ENTRY_FIX}`, {field, value: entry})
  return entry
}

export function siteIdProblem(siteId: string): string | undefined {
  return SITE_ID_PATTERN.test(siteId) ? undefined : SITE_ID_RULE
}
