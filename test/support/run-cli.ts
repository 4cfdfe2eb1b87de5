import {spawn} from 'node:child_process'
import {join} from 'node:path'

export const REPO_ROOT = join(import.meta.dirname, '..', '..')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the built CLI (`npm test` builds first) exactly as a user would, on this test's Node; `input` is its standard input. */
export function runCli(args: string[], options: {cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; input?: string} = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'run.js'), ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: {...process.env, ...options.env},
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (options.input !== undefined) child.stdin!.end(options.input)
    let stdout = ''
    let stderr = ''
    child.stdout!.on('data', (chunk) => (stdout += chunk))
    child.stderr!.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({code, stdout, stderr})
    })
  })
}
