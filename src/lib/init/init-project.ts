import {constants} from 'node:fs'
import {copyFile, lstat, mkdir, readdir, rm, stat} from 'node:fs/promises'
import {basename, join, relative, resolve, sep} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {DEFAULT_TEMPLATE, templateDir} from './project-templates.js'

export interface InitProjectOptions {
  /** Folder to create the project in (made when absent). */
  directory: string
  template?: string
  /** Replace files of the same name that are already there. */
  force?: boolean
  /** Where the templates are (the package's `examples/`); tests pass their own. */
  templatesDir?: string
}

export interface InitProjectResult {
  directory: string
  template: string
  /** Files written, relative to `directory`. */
  files: string[]
  /** The commands to run next, from the folder the user is in. */
  next: string[]
}

/**
 * Copies a shipped example project into `directory`: a composition with variables, sample rows,
 * a config file and a README. Refuses before writing anything when a file it would write is
 * already there (unless `force`), so an existing project is never half overwritten.
 */
export async function initProject(options: InitProjectOptions): Promise<InitProjectResult> {
  const template = options.template ?? DEFAULT_TEMPLATE
  const source = await templateDir(template, options.templatesDir)
  const directory = resolve(options.directory)
  const files = await listFiles(source)
  await assertIsDirectoryOrAbsent(directory)
  if (!options.force) {
    const existing = (await Promise.all(files.map(async (file) => ((await exists(join(directory, file))) ? file : undefined)))).filter(Boolean)
    if (existing.length > 0) {
      throw new EngineError(
        'OUTPUT_NOT_WRITABLE',
        `${directory} already has ${existing.join(', ')}: nothing was written. Choose an empty or new folder (engine init my-video), or add --force to replace them`,
        {directory, existing},
      )
    }
  }
  const links = (await Promise.all(files.map((file) => linkOnTheWay(directory, file)))).filter((link) => link !== undefined)
  if (links.length > 0) {
    throw new EngineError(
      'OUTPUT_NOT_WRITABLE',
      `${[...new Set(links)].join(', ')} in ${directory} ${links.length === 1 ? 'is a symbolic link' : 'are symbolic links'}: engine init never writes through a link (it could lead to a file outside the project); nothing was written. Remove ${links.length === 1 ? 'it' : 'them'}, or choose a new folder`,
      {directory, links},
    )
  }
  for (const file of files) {
    await mkdir(join(directory, file, '..'), {recursive: true})
    // Replaced by removing it first: the exclusive copy then creates a new file and follows no link put there meanwhile.
    if (options.force) await rm(join(directory, file), {force: true})
    await copyFile(join(source, file), join(directory, file), constants.COPYFILE_EXCL)
  }
  return {directory, template, files, next: nextCommands(directory)}
}

/** Preview it, render it, render one video per row: from the current folder, after a `cd` when the project is elsewhere. */
function nextCommands(directory: string): string[] {
  const from = relative(process.cwd(), directory)
  const cd = from === '' ? [] : [`cd ${quote(from.startsWith('..') ? directory : from)}`]
  return [...cd, 'engine preview index.html', 'engine render index.html', 'engine render index.html --batch rows.csv']
}

function quote(path: string): string {
  return /^[\w./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`
}

async function listFiles(root: string, prefix = ''): Promise<string[]> {
  const files: string[] = []
  for (const entry of await readdir(join(root, prefix), {withFileTypes: true})) {
    const path = prefix ? join(prefix, entry.name) : entry.name
    if (entry.isDirectory()) files.push(...(await listFiles(root, path)))
    else if (entry.isFile()) files.push(path)
  }
  return files.sort()
}

async function assertIsDirectoryOrAbsent(directory: string): Promise<void> {
  try {
    if (!(await stat(directory)).isDirectory()) {
      throw new EngineError('OUTPUT_NOT_WRITABLE', `${directory} is a file, not a folder: choose a folder name for the new project`, {directory, name: basename(directory)})
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/** The first part of `file`'s path below `directory` that is a symbolic link, relative to `directory`. */
async function linkOnTheWay(directory: string, file: string): Promise<string | undefined> {
  const parts = file.split(sep)
  for (let count = 1; count <= parts.length; count++) {
    const part = parts.slice(0, count).join(sep)
    const found = await lstat(join(directory, part)).catch(() => undefined)
    if (found === undefined) return undefined
    if (found.isSymbolicLink()) return part
  }
  return undefined
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path)
    return true
  } catch {
    return false
  }
}
