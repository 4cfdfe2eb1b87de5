/** What the operator should know before the server takes requests (printed by `engine serve`). */
export function startupWarnings(uid: number | undefined = process.getuid?.()): string[] {
  const warnings: string[] = []
  if (uid === 0) {
    warnings.push(
      'engine serve is running as root: every composition it renders runs a browser with root\'s access to this machine; run it as an unprivileged user (for example a dedicated "engine" account)',
    )
  }
  return warnings
}
