import {dirname, relative, sep} from 'node:path'

/** A project root more folders than this above the composition gets a warning naming it. */
export const FAR_ROOT_LEVELS = 3

/**
 * The page may load any file of its project, and the project is the nearest folder above the
 * composition with a package.json or .git: for a template deep in a repository, that is the whole
 * repository. Said once, naming the folder, when it lies more than FAR_ROOT_LEVELS folders up.
 */
export function farProjectRootNotice(file: string, projectDir: string): {code: 'project-root-far'; message: string} | undefined {
  const between = relative(projectDir, dirname(file))
  const levels = between === '' ? 0 : between.split(sep).length
  if (levels <= FAR_ROOT_LEVELS) return undefined
  return {
    code: 'project-root-far',
    message:
      `the project of this composition is ${projectDir}, ${levels} folders above it (the nearest folder with a package.json or .git): ` +
      'its page may load any file there except dot-files; put a package.json beside the composition to make its own folder the project',
  }
}
