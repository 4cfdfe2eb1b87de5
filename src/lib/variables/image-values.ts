import {open} from 'node:fs/promises'
import {relative, resolve, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {fetchRemote} from '../sandbox/fetch-remote.js'
import type {NetworkSettings} from '../sandbox/network-settings.js'
import {isInside, projectFile} from '../sandbox/project-file.js'
import type {VariableDeclaration} from './variable-declaration.js'
import {imageValues} from './image-variable-values.js'

/** The largest image a variable may name: the cap on any file the page loads. */
export const MAX_IMAGE_BYTES = 128 * 1024 ** 2

/** Where an image value is looked up: the project the page is served from and the composition's folder. */
export interface ImageCheckContext {
  projectDir: string
  /** The composition file's folder: relative values resolve against it, as the page resolves them. */
  pageDir: string
  network: NetworkSettings
  signal?: AbortSignal
  env?: NodeJS.ProcessEnv
}

export interface ImageProblem {
  variable: string
  value: string
  reason: string
}

/** Formats the browser decodes, by their first bytes (SVG by its root element). */
const SIGNATURES: readonly {name: string; test: (head: Buffer) => boolean}[] = [
  {name: 'png', test: (head) => head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))},
  {name: 'jpeg', test: (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff},
  {name: 'gif', test: (head) => /^GIF8[79]a/.test(head.subarray(0, 6).toString('latin1'))},
  {name: 'webp', test: (head) => head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP'},
  {name: 'avif', test: (head) => head.subarray(4, 8).toString('latin1') === 'ftyp' && /^avi[fs]/.test(head.subarray(8, 12).toString('latin1'))},
  {name: 'bmp', test: (head) => head.subarray(0, 2).toString('latin1') === 'BM'},
  {name: 'ico', test: (head) => head.subarray(0, 4).equals(Buffer.from([0, 0, 1, 0]))},
  {name: 'svg', test: (head) => /<svg[\s>]/i.test(head.toString('utf8'))},
]

/** The image format of a file's first bytes, or undefined when the browser would not decode it as an image. */
export function sniffImage(head: Buffer): string | undefined {
  return SIGNATURES.find((signature) => signature.test(head))?.name
}

/**
 * Checks one image value as the page would load it: an http(s) URL is fetched through the
 * download cache under the render's network rules (public addresses only unless private ones are
 * allowed; nothing with --no-network) and size cap; anything else is a path in the project,
 * relative to the composition file (or `/`-rooted at the project), that must exist, stay inside
 * the project and not be a dot-file. Either way the bytes must be an image the browser decodes.
 * Returns the reason it cannot be used, or undefined.
 */
export async function checkImageValue(value: string, context: ImageCheckContext): Promise<string | undefined> {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase()
  if (scheme === 'data') return 'is a data: URL; an image variable takes a URL or a project path (put the file in the project, or serve it over https)'
  if (scheme !== undefined && scheme !== 'http' && scheme !== 'https') return `is a ${scheme}: URL; an image variable takes an http(s) URL or a path in the project`
  if (value.startsWith('//')) return 'is a protocol-relative URL; write https:// in front'
  let file: string
  if (scheme === undefined) {
    const found = await localImage(value, context)
    if ('reason' in found) return found.reason
    file = found.path
  } else {
    try {
      file = (await fetchRemote(value, {network: context.network, maxBytes: MAX_IMAGE_BYTES, signal: context.signal, env: context.env})).path
    } catch (error) {
      if (error instanceof EngineError && (error.code === 'REQUEST_BLOCKED' || error.code === 'DOWNLOAD_FAILED')) return `cannot be loaded: ${error.message}`
      throw error
    }
  }
  const head = await readHead(file)
  if (head.size > MAX_IMAGE_BYTES) return `is ${Math.round(head.size / 1024 ** 2)} MB; an image may be at most ${MAX_IMAGE_BYTES / 1024 ** 2} MB`
  if (head.size === 0) return 'is an empty file, not an image'
  if (sniffImage(head.bytes) === undefined) return 'is not an image the browser decodes (png, jpeg, gif, webp, avif, bmp, ico or svg)'
  return undefined
}

async function localImage(value: string, context: ImageCheckContext): Promise<{path: string} | {reason: string}> {
  let path: string
  try {
    path = decodeURI(value.replace(/[?#].*$/, ''))
  } catch {
    return {reason: 'is not a valid path (a % that starts no escape)'}
  }
  const projectDir = resolve(context.projectDir)
  const lexical = path.startsWith('/') ? resolve(projectDir, '.' + path) : resolve(context.pageDir, path)
  // The page's URL resolution would clamp `..` at the project's root; a value that climbs out is a mistake or an attack.
  if (!isInside(projectDir, lexical)) return {reason: `is outside the project (${projectDir}); an image variable names a file in the project or an http(s) URL`}
  const found = await projectFile(projectDir, '/' + relative(projectDir, lexical).split(sep).join('/'))
  switch (found.kind) {
    case 'file':
      return {path: found.path}
    case 'missing':
      return {reason: `names ${relative(projectDir, lexical)}, which does not exist in ${projectDir}; add the file or fix the path (relative paths resolve against the composition file)`}
    case 'hidden':
      return {reason: 'names a dot-file (or a file in a dot-folder), which the page is never served'}
    case 'outside':
      return {reason: `leads outside the project (${projectDir}) through a link; an image variable names a file in the project`}
  }
}

async function readHead(file: string): Promise<{bytes: Buffer; size: number}> {
  const handle = await open(file, 'r')
  try {
    const {size} = await handle.stat()
    const bytes = Buffer.alloc(Math.min(size, 512))
    await handle.read(bytes, 0, bytes.length, 0)
    return {bytes, size}
  } finally {
    await handle.close()
  }
}

/** Every image value of one set of values; the problems together, so one run names them all. */
export async function imageProblems(declarations: readonly VariableDeclaration[], values: Record<string, unknown>, context: ImageCheckContext): Promise<ImageProblem[]> {
  const problems: ImageProblem[] = []
  for (const {variable, value} of imageValues(declarations, values)) {
    const reason = await checkImageValue(value, context)
    if (reason !== undefined) problems.push({variable, value, reason})
  }
  return problems
}

/** INVALID_VARIABLES naming every image value that cannot be used, with why and the fix; nothing when all can. */
export async function assertImageValues(declarations: readonly VariableDeclaration[], values: Record<string, unknown>, context: ImageCheckContext): Promise<void> {
  const problems = await imageProblems(declarations, values, context)
  if (problems.length === 0) return
  const lines = problems.map((problem) => `image variable "${problem.variable}": ${JSON.stringify(problem.value)} ${problem.reason}`)
  throw new EngineError('INVALID_VARIABLES', lines.join('\n'), {problems})
}
