import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'

const PROJECT_MARKERS = ['package.json', '.git']

/**
 * The project a composition belongs to: the nearest directory above it with a package.json or
 * .git, so that URLs such as `../../node_modules/gsap/...` resolve; without a project, the
 * composition's own directory. A render, the preview and Lambda serve files from here and nothing
 * outside it.
 */
export function projectRoot(compositionFile: string): string {
  const own = dirname(compositionFile)
  for (let directory = own; ; directory = dirname(directory)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(join(directory, marker)))) return directory
    if (dirname(directory) === directory) return own
  }
}
