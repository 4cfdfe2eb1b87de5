import {homedir, tmpdir} from 'node:os'

/** Turns text bound for a client into text without the server's own absolute paths. */
export type Redact = (text: string) => string

/**
 * Replaces the server's directories (its --root, its output directory, the temporary directory,
 * the home directory) in text sent to clients with placeholders: error messages and warnings name
 * files for the operator's log, but a client learns nothing of the machine's layout from them.
 * Longer paths first, so a directory inside another keeps its own name.
 */
export function pathRedactor(paths: Record<string, string>): Redact {
  const known = {[tmpdir()]: '<tmp>', [homedir()]: '~', ...paths}
  const entries = Object.entries(known)
    .filter(([path]) => path.length > 1)
    .sort((a, b) => b[0].length - a[0].length)
  return (text) => entries.reduce((out, [path, label]) => out.split(path).join(label), text)
}
