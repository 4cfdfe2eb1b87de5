// The player page of `engine preview`. Its state is mirrored on <body> for tools and tests:
// data-state (loading | ready | error), data-frame (the frame on screen) and data-shown-variables
// (the values the composition on screen was loaded with, as JSON).
import {CompositionView} from './composition-view.js'
import {showLintFindings, showPageErrors} from './diagnostics.js'
import {Player} from './player.js'
import {PREVIEW_ROUTES, VARIABLES_PARAMETER, type ChangeEvent, type PreviewState} from './preview-protocol.js'
import {VariablesPanel} from './variables-panel.js'
import type {PageErrorRecord} from '../../runtime/page-protocol.js'

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T
const body = document.body
const errorBox = byId<HTMLDivElement>('composition-error')
const pageErrorList = byId<HTMLUListElement>('page-errors')

let state: PreviewState | undefined
let pageErrors: PageErrorRecord[] = []

const view = new CompositionView(byId('stage'), byId('viewport'))
const player = new Player(
  {
    play: byId('play'),
    stepBack: byId('step-back'),
    stepForward: byId('step-forward'),
    scrubber: byId('scrubber'),
    time: byId('time'),
    duration: byId('duration'),
    frameNumber: byId('frame-number'),
    lastFrame: byId('last-frame'),
  },
  // Going back past a timer that already fired needs a fresh page, which the reload seeks to the frame.
  async (frame) => (view.canSeekTo(frame) ? addPageErrors(await view.seek(frame)) : reload()),
  (frame) => (body.dataset.frame = String(frame)),
)
const panel = new VariablesPanel(byId('variables-form'), byId('variables-json'), () => void reload())

byId('reset-variables').addEventListener('click', () => panel.reset())
byId('copy-variables').addEventListener('click', () => void copyVariables())

function showError(message: string | undefined): void {
  errorBox.hidden = message === undefined
  errorBox.textContent = message ?? ''
  if (message !== undefined) body.dataset.state = 'error'
}

/** Lists the errors not listed yet (by message). */
function addPageErrors(errors: readonly (PageErrorRecord | null)[]): void {
  const before = pageErrors.length
  for (const error of errors) {
    if (error && !pageErrors.some((known) => known.message === error.message)) pageErrors.push(error)
  }
  if (pageErrors.length > before) showPageErrors(pageErrorList, pageErrors)
}

/** Reads the composition from the server again (at start and after every change on disk). */
async function refresh(): Promise<void> {
  const response = await fetch(PREVIEW_ROUTES.state, {cache: 'no-store'})
  state = (await response.json()) as PreviewState
  showLintFindings(byId('lint-findings'), state.lint)
  const {composition} = state
  if (!composition) {
    showError(state.error ? `${state.error.code}: ${state.error.message}` : 'the composition could not be read')
    return
  }
  showTiming(composition.durationSeconds)
  view.setSize(composition.width, composition.height)
  panel.documentUrl = new URL(state.documentPath, location.href).href
  panel.captions = {variables: composition.captionVariables, files: composition.captionFiles}
  panel.setDeclarations(composition.declarations)
  await reload()
}

/** The composition's length in the header and the player; unknown until its page tells it. */
function showTiming(seconds: number | undefined): void {
  if (!state?.composition) return
  const {width, height} = state.composition
  const length = seconds === undefined ? 'length from its timelines' : `${Math.round(seconds * 1000) / 1000} s`
  byId('composition-size').textContent = `${width}×${height}, ${length} at ${state.fps.num}${state.fps.den === 1 ? '' : `/${state.fps.den}`} fps`
  // Frames as plan/fps.ts counts them (this page loads only files of its own folder).
  if (seconds !== undefined) player.setTiming(state.fps, Math.max(1, Math.ceil((seconds * state.fps.num) / state.fps.den - 1e-9)))
}

/** Loads the composition with the current variable values, keeping the frame on screen. */
async function reload(): Promise<void> {
  if (!state?.composition) return
  body.dataset.state = 'loading'
  const values = panel.values
  const query = new URLSearchParams({[VARIABLES_PARAMETER]: JSON.stringify(values), revision: String(state.revision)})
  let shownFrame = player.frame
  const outcome = await view.load(`${state.documentPath}?${query}`, () => (shownFrame = player.frame))
  if (outcome.kind === 'superseded') return
  if (outcome.kind === 'failed') return showError(outcome.message)
  showError(undefined)
  pageErrors = []
  addPageErrors([...outcome.report.errors, outcome.seekError])
  showPageErrors(pageErrorList, pageErrors)
  // A root without data-duration lasts as long as the timelines its page registered.
  const {timelineSeconds} = outcome.report
  if (state.composition.durationSeconds === undefined && typeof timelineSeconds === 'number') showTiming(timelineSeconds)
  body.dataset.frame = String(shownFrame)
  body.dataset.shownVariables = JSON.stringify(values)
  body.dataset.state = 'ready'
  // The player may have moved on while the page loaded.
  if (player.frame !== shownFrame) player.seekTo(player.frame)
}

async function copyVariables(): Promise<void> {
  const status = byId('copy-status')
  const json = byId<HTMLTextAreaElement>('variables-json')
  try {
    await navigator.clipboard.writeText(json.value)
    status.textContent = 'Copied'
  } catch {
    json.focus()
    json.select()
    status.textContent = 'Press Ctrl+C (or Cmd+C) to copy the selected JSON'
  }
}

function listenForChanges(): void {
  const connection = byId('connection')
  const events = new EventSource(PREVIEW_ROUTES.events)
  let refreshing = Promise.resolve()
  events.addEventListener('open', () => (connection.textContent = 'live reload on'))
  events.addEventListener('error', () => (connection.textContent = 'preview server unreachable; retrying'))
  events.addEventListener('message', (message: MessageEvent<string>) => {
    const event = JSON.parse(message.data) as ChangeEvent
    if (event.type === 'change') refreshing = refreshing.then(refresh, refresh)
  })
}

listenForChanges()
refresh().catch((error: unknown) => showError(`the preview could not start: ${String(error)}`))
