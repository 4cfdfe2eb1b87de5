import {EngineError} from '../errors/engine-error.js'

/**
 * `ENGINE_HOST_RESOLVER_RULES="MAP media.example.test 127.0.0.2, MAP cdn.test 10.0.0.5"`: names the
 * engine resolves to a fixed address instead of asking DNS, in the syntax of Chromium's
 * --host-resolver-rules. A mapped name counts as public whatever its address: the operator who
 * sets the variable vouches for it (tests stand in for an outside host this way).
 */
export const HOST_RULES_VARIABLE = 'ENGINE_HOST_RESOLVER_RULES'

export function hostRules(env: NodeJS.ProcessEnv = process.env): Map<string, string> {
  const text = env[HOST_RULES_VARIABLE]?.trim()
  const rules = new Map<string, string>()
  if (!text) return rules
  for (const rule of text.split(',')) {
    const parts = rule.trim().split(/\s+/)
    if (parts.length !== 3 || parts[0].toUpperCase() !== 'MAP') {
      throw new EngineError('INVALID_CONFIG', `${HOST_RULES_VARIABLE}: "${rule.trim()}" is not a rule; write "MAP <host> <address>", rules separated by commas`, {
        rule: rule.trim(),
      })
    }
    rules.set(parts[1].toLowerCase(), parts[2])
  }
  return rules
}
