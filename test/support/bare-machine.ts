import {execFileSync, spawn} from 'node:child_process'
import {mkdtempSync, symlinkSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import type {CliResult} from './run-cli.js'

const SYSTEM_BROWSER = '/usr/bin/chromium-headless-shell'

/** Absolute paths: the command runs with a PATH that has none of them. */
const tool = (name: string) => {
  try {
    return execFileSync('sh', ['-c', `command -v ${name}`], {encoding: 'utf8'}).trim()
  } catch {
    return ''
  }
}
const UNSHARE = tool('unshare')
const MOUNT = tool('mount')

/** Whether this machine lets a test hide files in a private mount namespace (root, unshare). */
export const canHideSystemTools = (() => {
  try {
    execFileSync(UNSHARE, ['-m', MOUNT, '--bind', '/dev/null', SYSTEM_BROWSER], {stdio: 'ignore'})
    return true
  } catch {
    return false
  }
})()

/** A folder holding only `node` (this test's Node 22): the PATH of a machine with no ffmpeg and no browser on it. */
export function nodeOnlyPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engine-bare-path-'))
  symlinkSync(process.execPath, join(dir, 'node'))
  return dir
}

/** `command` behind the namespace that hides the system headless shell (argv, first the program). */
export function bareCommand(command: string[]): string[] {
  const script = `${MOUNT} --bind /dev/null ${SYSTEM_BROWSER} && exec "$@"`
  return [UNSHARE, '-m', '--propagation', 'private', '/bin/sh', '-c', script, 'sh', ...command]
}

/**
 * Runs `command` as on a machine without a browser or ffmpeg: PATH is what the caller gives
 * (see nodeOnlyPath), and the system headless shell, which engine looks for at its fixed path, is
 * covered by /dev/null in a mount namespace of this command alone (nothing changes for other processes).
 */
export function runBare(command: string[], options: {cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number}): Promise<CliResult> {
  const [program, ...args] = bareCommand(command)
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe']})
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 180_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}
