import {z} from 'zod'

/** 1: the first layout (`<key>/entry.json` beside the stored files). */
export const CACHE_ENTRY_VERSION = 1
export const ENTRY_FILE = 'entry.json'

const sha256 = z.string().regex(/^[0-9a-f]{64}$/)
// No C0/C1 control characters: an entry's text reaches terminals (`engine cache ls`) and logs.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/
const printable = z.string().max(1024).refine((text) => !CONTROL.test(text), 'contains control characters')

/**
 * A stored file's name inside its entry: `output` or `poster` with the output's extension. Never a
 * path, so an entry cannot make a hit read or write anything outside its own directory.
 */
const storedName = z.string().regex(/^(output|poster)(\.[a-z0-9]{1,12})?$/)

/** A project path relative to the project's folder, as the page asked for it: no `..`, no absolute path, no control characters. */
const projectPath = printable.refine(
  (path) => path.length > 0 && !path.startsWith('/') && !path.includes('\\') && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
  'is not a path inside the project',
)

const storedFileSchema = z.object({
  role: z.enum(['output', 'poster']),
  name: storedName,
  bytes: z.number().int().nonnegative(),
  sha256,
})

const pixels = z.number().finite().min(0).max(1e7)
const count = z.number().int().min(0).max(1e9)

/** A finding of the text check (render/text-findings' TextFinding), as the render that stored the entry found it. */
const textFindingSchema = z
  .object({
    kind: z.enum(['clipped', 'outside-frame', 'max-lines']),
    element: printable,
    variable: printable.optional(),
    frame: count,
    timeSeconds: z.number().finite().min(0),
    overflowPx: pixels,
    clippedBy: printable.optional(),
    lines: count.optional(),
    maxLines: count.optional(),
  })
  .strict()

/** A project file the render read, with its content then (null: the page asked for it and it did not exist). */
const inputSchema = z.object({path: projectPath, sha256: sha256.nullable()})

export const cacheEntrySchema = z
  .object({
    version: z.literal(CACHE_ENTRY_VERSION),
    key: sha256,
    kind: z.enum(['render', 'still']),
    createdAt: z.string().datetime(),
    /** The composition's file name, for `engine cache ls`. */
    composition: printable,
    files: z.array(storedFileSchema).min(1).max(2),
    inputs: z.array(inputSchema).max(10_000),
    /** What the render reported about its output, returned again on a hit. */
    result: z.object({
      totalFrames: z.number().int().nonnegative(),
      durationSeconds: z.number().nonnegative(),
    }),
    /**
     * The text check's findings on the stored output's page (none: an empty list), when the render
     * that stored it ran the check: a hit that asks for the check gets them without a page.
     */
    textFindings: z.array(textFindingSchema).max(20).optional(),
  })
  .strict()
  .refine((entry) => new Set(entry.files.map((file) => file.role)).size === entry.files.length && entry.files.some((file) => file.role === 'output'), 'needs one output file')

export type CacheEntry = z.infer<typeof cacheEntrySchema>
export type StoredFile = CacheEntry['files'][number]
export type StoredTextFinding = NonNullable<CacheEntry['textFindings']>[number]
export type CacheInput = CacheEntry['inputs'][number]
export type StoredRole = StoredFile['role']
