import type {Config} from '@oclif/core'

const VERSION_FLAGS = new Set(['--version', '-v'])

/** `engine --version --json` (flags in any order, nothing else): the version as one JSON line, as every `--json` prints. */
export function asksVersionJson(argv: readonly string[]): boolean {
  return argv.length === 2 && argv.includes('--json') && argv.some((arg) => VERSION_FLAGS.has(arg))
}

/** What `engine --version` says, as data: `{"name":"html-video-engine","version":"0.1.0","platform":"linux","arch":"x64","node":"v22.23.3"}`. */
export function versionJson(config: Pick<Config, 'name' | 'version' | 'platform' | 'arch'>): string {
  return JSON.stringify({name: config.name, version: config.version, platform: config.platform, arch: config.arch, node: process.version})
}
