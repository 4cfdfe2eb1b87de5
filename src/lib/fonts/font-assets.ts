import {createHash} from 'node:crypto'
import {copyFile, link, mkdir, readFile, rename, rm, stat} from 'node:fs/promises'
import {extname, join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {fontCacheDirectory} from './font-cache-dir.js'

/** First bytes of the font formats a page can load: woff2, woff, TrueType, OpenType. */
const FONT_SIGNATURES = ['wOF2', 'wOFF', '\x00\x01\x00\x00', 'OTTO', 'true']

/** Content hash per source path, once per process (package files do not change under a render). */
const hashed = new Map<string, Promise<string>>()

/**
 * Puts `source` into the font cache under its content address (`<sha256><ext>`), hard-linked
 * when the file system allows, and returns that name. A file that is not a font is an error
 * naming it.
 */
export function cacheFontFile(source: string, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const key = `${fontCacheDirectory(env)}\0${source}`
  let result = hashed.get(key)
  if (!result) {
    result = store(source, fontCacheDirectory(env))
    hashed.set(key, result)
    result.catch(() => hashed.delete(key))
  }
  return result
}

async function store(source: string, directory: string): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readFile(source)
  } catch (error) {
    throw new EngineError('FONT_FAILED', `cannot read the font file ${source} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, {file: source})
  }
  const signature = bytes.subarray(0, 4).toString('latin1')
  if (!FONT_SIGNATURES.includes(signature)) {
    throw new EngineError('FONT_FAILED', `${source} is not a font file (it starts with neither a woff2, woff, TrueType nor OpenType signature); reinstall the package that holds it`, {
      file: source,
    })
  }
  const name = `${createHash('sha256').update(bytes).digest('hex')}${extname(source).toLowerCase()}`
  const target = join(directory, name)
  const existing = await stat(target).catch(() => undefined)
  if (existing?.size === bytes.length) return name
  try {
    await mkdir(directory, {recursive: true})
    const temporary = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
    try {
      await link(source, temporary)
    } catch {
      await copyFile(source, temporary)
    }
    await rename(temporary, target).catch(async (error: unknown) => {
      await rm(temporary, {force: true})
      throw error
    })
  } catch (error) {
    throw new EngineError('FONT_FAILED', `cannot write the font cache ${directory} (${(error as Error).message}); set ENGINE_CACHE_DIR to a writable directory`, {
      directory,
    })
  }
  return name
}
