import type {RuntimeConfig} from '../runtime-config.js'

/**
 * Which sub-composition instance's script is running. Compile wraps each sub-composition script in
 * `__engine.__runScoped(key, fn)`; while fn runs, variable reads and timeline registrations belong
 * to that instance.
 */
export class InstanceScope {
  private readonly stack: string[] = []

  constructor(private readonly config: RuntimeConfig) {}

  /** Instance key of the innermost scoped script running now; undefined at the top level. */
  current(): string | undefined {
    return this.stack[this.stack.length - 1]
  }

  /** A copy, so that a script mutating its values cannot change what another script reads. */
  variables(key = this.current()): Partial<Record<string, unknown>> {
    if (key === undefined) return {...this.config.variables}
    return {...this.config.instances[key]?.variables}
  }

  run<T>(key: string, fn: () => T): T {
    if (!Object.hasOwn(this.config.instances, key)) {
      throw new Error(`__engine.__runScoped: unknown sub-composition instance "${key}"; the page and its render config do not match`)
    }
    this.stack.push(key)
    try {
      return fn()
    } finally {
      this.stack.pop()
    }
  }
}
