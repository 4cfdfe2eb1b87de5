import {readFile} from 'node:fs/promises'
import {join} from 'node:path'

/** Set to 1 (in your own shell or profile, never a project's) to trust project configs. */
export const TRUST_PROJECT_CONFIG_ENV = 'ENGINE_TRUST_PROJECT_CONFIG'
/** The user-level settings file under engine's config directory (~/.config/engine). */
export const USER_SETTINGS_FILE = 'settings.json'

/** How a user opts in, for messages. */
export const TRUST_HOW = `pass --trust-project-config, set ${TRUST_PROJECT_CONFIG_ENV}=1, or put {"trustProjectConfig": true} in ~/.config/engine/${USER_SETTINGS_FILE}`

export interface TrustSources {
  /** `--trust-project-config`. */
  flag?: boolean
  env?: NodeJS.ProcessEnv
  /** engine's user config directory (oclif's configDir: ~/.config/engine, or ENGINE_CONFIG_DIR). */
  userConfigDir?: string
}

/**
 * Whether the user trusts the project configs engine finds: a project's config may then be code
 * (engine.config.js/.mjs) and name programs to run (browserPath) or open the sandbox
 * (allowPrivateNetwork). Only the user says so, by a flag, their environment or their own
 * settings file; nothing a project holds can.
 */
export async function projectConfigTrusted(sources: TrustSources): Promise<boolean> {
  if (sources.flag) return true
  if ((sources.env ?? process.env)[TRUST_PROJECT_CONFIG_ENV] === '1') return true
  if (!sources.userConfigDir) return false
  try {
    const settings = JSON.parse(await readFile(join(sources.userConfigDir, USER_SETTINGS_FILE), 'utf8')) as {trustProjectConfig?: unknown}
    return settings.trustProjectConfig === true
  } catch {
    return false
  }
}
