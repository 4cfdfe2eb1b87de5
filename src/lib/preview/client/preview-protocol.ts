// Shared by the preview server and the player page (which loads only files of this folder).
import type {ErrorJson} from '../../errors/engine-error.js'
import type {LintFinding} from '../../lint/lint-codes.js'
import type {Fps, FpsSource} from '../../plan/fps.js'
import type {VariableDeclaration} from '../../variables/variable-declaration.js'

/** What the player page needs to know about the composition; fetched again after every change on disk. */
export interface PreviewState {
  /** Path on the preview server the composition document is served at (its real place under the served root). */
  documentPath: string
  /** Counts file changes seen so far; the page reloads the composition when it moves. */
  revision: number
  fps: Fps
  /** `flag` (--fps or the config file), `composition` (the root's data-fps) or `default` (30). */
  fpsSource: FpsSource
  /** Undefined when the composition does not compile (then `error` says why). */
  composition?: {
    compositionId: string
    width: number
    height: number
    /** Undefined when the root has no data-duration: the page's registered timelines give it once loaded. */
    durationSeconds?: number
    totalFrames?: number
    declarations: VariableDeclaration[]
    /** String variables an element shows as captions (`data-captions-var`): the panel offers caption files and cue text for them. */
    captionVariables: string[]
    /** WebVTT and SubRip files under the composition's folder, relative to it (at most 200). */
    captionFiles: string[]
  }
  lint: LintFinding[]
  error?: ErrorJson
}

/** Query parameter of the composition document that carries the variable values as JSON. */
export const VARIABLES_PARAMETER = 'variables'

/** Routes of the preview server, shared with the page. */
export const PREVIEW_ROUTES = {
  state: '/__preview/state',
  events: '/__preview/events',
  runtime: '/__preview/runtime.js',
  client: '/__preview/client/',
} as const

/** Server-sent event telling the page that files it shows changed on disk. */
export interface ChangeEvent {
  type: 'change'
  revision: number
  /** Changed files, relative to the served root. */
  files: string[]
}
