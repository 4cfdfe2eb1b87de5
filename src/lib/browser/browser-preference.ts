import {EngineError} from '../errors/engine-error.js'

export const BROWSER_PREFERENCE_ENV = 'ENGINE_BROWSER'

/**
 * Which browsers a render may pick when no path is given (`ENGINE_BROWSER`):
 * - `auto` (default): engine's own downloads first, then the system's (see resolveBrowser);
 * - `system`: the system's headless shell or Chrome first, engine's downloads only when there is none;
 * - `downloaded`: engine's downloads only (the pinned headless shell, else the function Chromium),
 *   never a system browser, even one at its fixed path: what a render downloads when there is none.
 */
export const BROWSER_PREFERENCES = ['auto', 'system', 'downloaded'] as const
export type BrowserPreference = (typeof BROWSER_PREFERENCES)[number]

export function browserPreference(env: NodeJS.ProcessEnv = process.env): BrowserPreference {
  const value = env[BROWSER_PREFERENCE_ENV]?.trim().toLowerCase()
  if (!value) return 'auto'
  if ((BROWSER_PREFERENCES as readonly string[]).includes(value)) return value as BrowserPreference
  throw new EngineError(
    'INVALID_CONFIG',
    `${BROWSER_PREFERENCE_ENV}: "${env[BROWSER_PREFERENCE_ENV]}" is not a browser choice; set it to ${BROWSER_PREFERENCES.join(', ')} (a path goes in ENGINE_BROWSER_PATH), or unset it`,
    {field: BROWSER_PREFERENCE_ENV, value: env[BROWSER_PREFERENCE_ENV], allowed: [...BROWSER_PREFERENCES]},
  )
}
