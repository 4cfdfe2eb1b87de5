export const AUTO_INSTALL_ENV = 'ENGINE_AUTO_INSTALL'

export type InstallConsent = {decision: 'install'} | {decision: 'ask'} | {decision: 'refuse'; reason: string}

const truthy = (value: string | undefined) => value !== undefined && /^(1|true|yes)$/i.test(value.trim())
const falsy = (value: string | undefined) => value !== undefined && /^(0|false|no)$/i.test(value.trim())

/** CI services set CI (GitHub Actions, GitLab, CircleCI, Travis, Buildkite...), some only CONTINUOUS_INTEGRATION. */
export function runsInCi(env: NodeJS.ProcessEnv): boolean {
  return (env.CI !== undefined && env.CI !== '' && !falsy(env.CI)) || truthy(env.CONTINUOUS_INTEGRATION)
}

/**
 * Whether a missing browser or ffmpeg may be downloaded now: `--yes` or ENGINE_AUTO_INSTALL=1
 * say yes; ENGINE_AUTO_INSTALL=0 says no; otherwise a person at a terminal is asked, and a
 * script or CI (where nobody can answer and a surprise download would go unnoticed) is refused
 * with the way to allow it. Whatever is installed is always announced first.
 */
export function installConsent(options: {yes?: boolean; env: NodeJS.ProcessEnv; interactive: boolean}): InstallConsent {
  const setting = options.env[AUTO_INSTALL_ENV]
  if (options.yes || truthy(setting)) return {decision: 'install'}
  if (falsy(setting)) return {decision: 'refuse', reason: `${AUTO_INSTALL_ENV}=${setting} forbids downloads`}
  if (runsInCi(options.env)) return {decision: 'refuse', reason: `in CI engine downloads nothing unless asked: add --yes or set ${AUTO_INSTALL_ENV}=1`}
  if (!options.interactive) return {decision: 'refuse', reason: `no terminal to ask: add --yes or set ${AUTO_INSTALL_ENV}=1 to download it`}
  return {decision: 'ask'}
}
