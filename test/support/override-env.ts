/**
 * Sets environment variables of this test process (for code under test that reads them directly);
 * the returned function puts back what was there, leaving unset what was unset.
 */
export function overrideEnv(values: Record<string, string>): () => void {
  const saved = Object.entries(values).map(([name]) => [name, process.env[name]] as const)
  Object.assign(process.env, values)
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}
