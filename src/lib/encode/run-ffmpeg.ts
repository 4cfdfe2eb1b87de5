import {spawn, type ChildProcess} from 'node:child_process'
import {createReadStream} from 'node:fs'
import {pipeline} from 'node:stream/promises'
import {EngineError} from '../errors/engine-error.js'
import {isNoSpace, noSpaceError} from '../errors/no-space.js'

export interface RunFfmpegOptions {
  /** Says what was being made, for the error message ("assembling out.mp4"). */
  what: string
  /** Files streamed one after another into ffmpeg's stdin (read it with `-i pipe:0`). */
  stdinFiles?: readonly string[]
  signal?: AbortSignal
  /** Kills ffmpeg and fails after this long. */
  timeoutMs?: number
}

const STDERR_TAIL_BYTES = 4096

/** Keeps the end of ffmpeg's stderr: the last lines are the ones that say what went wrong. */
export class StderrTail {
  private text = ''

  push(chunk: Buffer | string): void {
    this.text = (this.text + chunk.toString()).slice(-STDERR_TAIL_BYTES)
  }

  lines(count = 8): string {
    return this.text.trim().split('\n').slice(-count).join('\n')
  }
}

/** Arguments every ffmpeg run starts with: quiet except for errors, overwrite outputs. */
export function baseFfmpegArgs(): string[] {
  return ['-hide_banner', '-loglevel', 'error', '-y']
}

export function spawnFfmpeg(ffmpegPath: string, args: readonly string[], stdin: 'pipe' | 'ignore'): ChildProcess {
  return spawn(ffmpegPath, args, {stdio: [stdin, 'ignore', 'pipe'], windowsHide: true})
}

export function ffmpegFailure(what: string, reason: string, stderr: StderrTail, details: Record<string, unknown> = {}): EngineError {
  const tail = stderr.lines()
  // ffmpeg's last argument is the file it writes: name it rather than the step.
  if (isNoSpace(tail)) return noSpaceError(Array.isArray(details.args) ? String(details.args.at(-1)) : what, new Error(tail))
  return new EngineError('ENCODE_FAILED', `${what}: ffmpeg ${reason}${tail ? `:\n${tail}` : ''}`, {...details, stderr: tail})
}

export function spawnFailure(ffmpegPath: string, error: NodeJS.ErrnoException): EngineError {
  if (error.code === 'ENOENT' || error.code === 'EACCES') {
    return new EngineError('FFMPEG_NOT_FOUND', `ffmpeg at ${ffmpegPath} cannot be started (${error.code}): reinstall it (\`apt-get install -y ffmpeg\`) or fix ENGINE_FFMPEG_PATH`, {ffmpegPath})
  }
  return new EngineError('ENCODE_FAILED', `ffmpeg at ${ffmpegPath} cannot be started: ${error.message}`, {ffmpegPath})
}

/** Runs one ffmpeg command to completion; any failure is an ENCODE_FAILED carrying stderr's tail. */
export async function runFfmpeg(ffmpegPath: string, args: readonly string[], options: RunFfmpegOptions): Promise<void> {
  if (options.signal?.aborted) throw new EngineError('CANCELLED', `${options.what}: cancelled`)
  const fullArgs = [...baseFfmpegArgs(), ...(options.stdinFiles ? [] : ['-nostdin']), ...args]
  const child = spawnFfmpeg(ffmpegPath, fullArgs, options.stdinFiles ? 'pipe' : 'ignore')
  const stderr = new StderrTail()
  child.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk))

  let stopped: 'cancelled' | 'timed out' | undefined
  const stop = (why: 'cancelled' | 'timed out') => {
    stopped ??= why
    child.kill('SIGKILL')
  }
  const onAbort = () => stop('cancelled')
  options.signal?.addEventListener('abort', onAbort, {once: true})
  const timer = options.timeoutMs === undefined ? undefined : setTimeout(() => stop('timed out'), options.timeoutMs)

  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (error) => reject(spawnFailure(ffmpegPath, error)))
    child.once('close', (code) => resolve(code))
  })
  const fed = options.stdinFiles ? feedFiles(child, options.stdinFiles) : Promise.resolve()

  try {
    const [code] = await Promise.all([exited, fed.catch(() => undefined)])
    if (stopped === 'cancelled') throw new EngineError('CANCELLED', `${options.what}: cancelled`)
    if (stopped === 'timed out') throw ffmpegFailure(options.what, `timed out after ${options.timeoutMs} ms`, stderr, {args: fullArgs})
    if (code !== 0) throw ffmpegFailure(options.what, `exited with code ${code}`, stderr, {args: fullArgs, exitCode: code})
    await fed
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', onAbort)
  }
}

async function feedFiles(child: ChildProcess, files: readonly string[]): Promise<void> {
  const stdin = child.stdin
  if (!stdin) return
  // ffmpeg may stop reading early (an error); its exit code then tells the story, not EPIPE.
  stdin.on('error', () => undefined)
  for (const file of files) {
    try {
      await pipeline(createReadStream(file), stdin, {end: false})
    } catch (error) {
      stdin.destroy()
      throw new EngineError('ENCODE_FAILED', `cannot stream ${file} into ffmpeg: ${(error as Error).message}`, {file})
    }
  }
  stdin.end()
}
