import {Listr, ListrLogger, ProcessOutput} from 'listr2'
import {toEngineError} from '../lib/errors/engine-error.js'
import type {RenderEvent, RenderEventListener} from '../lib/render/render-events.js'
import {logs} from './log.js'
import {terminalText} from './terminal-text.js'

export type OutputMode = 'json' | 'quiet' | 'progress'

/**
 * `--json`: every event as one line of JSON on stdout. The error event is left to the command's
 * error handler, which also reports failures that happen before the render starts.
 */
export function jsonLines(event: RenderEvent): void {
  if (event.type !== 'error') process.stdout.write(JSON.stringify(event) + '\n')
}

/** A warning line for stderr; a notice (`level: 'info'`) is a note, not a warning. */
export function describeWarning(event: {code: string; message: string; level?: 'info'}): string {
  return terminalText(`${event.level === 'info' ? 'note' : 'warning'} [${event.code}]: ${event.message}`)
}

/** Writes a warning (or a note) to stderr unless the log level leaves it out. */
export function writeWarning(event: {code: string; message: string; level?: 'info'}): void {
  if (logs(event.level === 'info' ? 'info' : 'warn')) process.stderr.write(describeWarning(event) + '\n')
}

function describeProgress(event: Extract<RenderEvent, {type: 'progress'}>): string {
  const eta = event.etaSeconds === null ? '' : ` · ETA ${event.etaSeconds.toFixed(0)}s`
  return `frame ${event.frame}/${event.totalFrames} · ${event.framesPerSecond.toFixed(1)} frames/s${eta}`
}

/** Follows the render's stages in the task title and its frames, frames/s and ETA in the output line. */
function progressListener(task: {title: string; output: string}, title: string): RenderEventListener {
  return (event) => {
    if (event.type === 'progress') task.output = describeProgress(event)
    else if (event.type === 'stage' && event.stage !== 'done') task.title = `${title}: ${event.stage}`
    else if (event.type === 'start') {
      task.title = `${title}: ${event.totalFrames} frames ${event.width}x${event.height} @ ${event.fps} fps${event.fpsSource === 'composition' ? ' (data-fps)' : ''}, ${event.workers} worker(s), ${event.browser.beginFrame ? 'begin-frame' : 'screenshot'} capture${event.browser.source === 'function-chromium' ? ' with the function Chromium (engine cache)' : ''}`
    } else if (event.type === 'warning') writeWarning(event)
    else if (event.type === 'done') task.title = `${title}: done`
  }
}

/**
 * Runs a render under a listr2 task whose title follows the stages and whose output line shows
 * frames, frames/s and ETA. Warnings go to stderr so that they survive the redraws.
 */
export function withProgress<T>(title: string, run: (onEvent: RenderEventListener) => Promise<T>): Promise<T> {
  return inListrTask(title, (task) => run(progressListener(task, title)))
}

/**
 * Runs `work` as the one task of a listr2 list on stderr (the live display in a terminal, plain
 * lines when piped). An error is rethrown as it was; the task line only names its code, since the command
 * prints the error once.
 */
export async function inListrTask<T>(title: string, work: (task: {title: string; output: string}) => Promise<T>): Promise<T> {
  // Progress is info: --log-level warn or error leaves it out.
  if (!logs('info')) return work({title, output: ''})
  const logger = new ListrLogger({useIcons: true, processOutput: new ProcessOutput(process.stderr, process.stderr)})
  let result: T | undefined
  let failure: unknown
  const list = new Listr(
    [
      {
        title,
        task: async (_context, task) => {
          try {
            result = await work(task)
          } catch (error) {
            failure = error
            throw new Error(toEngineError(error).code)
          }
        },
        rendererOptions: {persistentOutput: false, bottomBar: 1},
      },
    ],
    {
      // Progress is diagnostics: on stderr (live in a terminal, plain lines when piped), so that
      // stdout carries only results.
      renderer: process.stderr.isTTY ? 'default' : 'simple',
      // The command owns Ctrl-C (it cancels the render and exits 130); listr2's own handler would exit 127 mid-cleanup.
      registerSignalListeners: false,
      exitOnError: true,
      collectErrors: false,
      rendererOptions: {collapseErrors: true, showErrorMessage: false, logger},
      // listr2 draws live only when stdout is a terminal; otherwise it falls back to plain lines.
      fallbackRendererOptions: {logger},
    },
  )
  try {
    await list.run()
  } catch (error) {
    throw failure ?? error
  }
  return result as T
}
