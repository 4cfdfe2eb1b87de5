import {existsSync} from 'node:fs'
import {dirname, join} from 'node:path'

const PROJECT_MARKERS = ['package.json', '.git']

/**
 * The directory the preview serves files from: the composition's project (the nearest directory
 * above it with a package.json or .git), so that URLs such as `../../node_modules/gsap/...`
 * resolve as they do in a render; without a project, the composition's own directory. Nothing
 * outside it is served.
 */
export function servedRoot(compositionFile: string): string {
  const own = dirname(compositionFile)
  for (let directory = own; ; directory = dirname(directory)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(join(directory, marker)))) return directory
    if (dirname(directory) === directory) return own
  }
}
