import {ensureFreshBuild} from './fresh-build.js'
import {REPO_ROOT} from './run-cli.js'

/** Runs once before any test file: the CLI and the page runtime in dist/ must be those of the current sources. */
export default function setup(): void {
  ensureFreshBuild(REPO_ROOT)
}
