import {dirname, isAbsolute, relative, sep} from 'node:path'
import type {PathMapping} from './container-paths.js'

/** One bind mount: a host path and where the container sees it. */
export interface Mount {
  source: string
  target: string
  readOnly: boolean
}

export interface RenderMountsInput {
  /** Mounted read-only: the composition and everything it loads. */
  projectDir: string
  /** Mounted writable: where the output (and a batch's manifest) is written. */
  outputDir: string
  /** Files read by the render that may lie outside the project (a batch file), mounted read-only at their own path. */
  inputFiles: readonly string[]
  /** Files engine itself made for the container (the variables), each at a fixed target. */
  internalFiles: ReadonlyArray<{source: string; target: string}>
  /** Directories read by the engine inside (the user's plugins), mounted read-only at their own path. */
  inputDirectories?: readonly string[]
}

/** Whether `path` is `directory` or lies below it. */
export function isWithin(path: string, directory: string): boolean {
  const rest = relative(directory, path)
  return rest === '' || (rest.split(sep)[0] !== '..' && !isAbsolute(rest))
}

/**
 * The mounts of a container render, parents first. The project is read-only unless the output
 * directory is the project or encloses it (then the project is mounted once, writable, as part of
 * the output directory); an output directory inside the project is mounted over it, writable.
 * Input files already visible through another mount are not mounted again.
 */
export function renderMounts(input: RenderMountsInput, mapping: PathMapping): Mount[] {
  const directories: Array<{source: string; readOnly: boolean}> = [{source: input.outputDir, readOnly: false}]
  if (!isWithin(input.projectDir, input.outputDir)) directories.push({source: input.projectDir, readOnly: true})
  const visible = (path: string) => directories.some((directory) => isWithin(path, directory.source))
  for (const source of input.inputDirectories ?? []) if (!visible(source)) directories.push({source, readOnly: true})
  const files = [...new Set(input.inputFiles)].filter((file) => !visible(file))
  const mounts: Mount[] = [
    ...directories.map(({source, readOnly}) => ({source, target: mapping.toContainer(source), readOnly})),
    ...files.map((source) => ({source, target: mapping.toContainer(source), readOnly: true})),
    ...input.internalFiles.map(({source, target}) => ({source, target, readOnly: true})),
  ]
  return mounts.sort((a, b) => depth(a.target) - depth(b.target) || a.target.localeCompare(b.target))
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length
}

/** The directory a batch's outputs and manifest go under: the template's longest leading directory without a placeholder. */
export function templateOutputDir(template: string): string {
  const beforePlaceholder = template.split('{')[0]
  return template.includes('{') ? dirname(beforePlaceholder + 'x') : dirname(template)
}
