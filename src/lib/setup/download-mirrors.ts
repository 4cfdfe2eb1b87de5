import {dirname} from 'node:path/posix'
import {z} from 'zod'
import {PINNED_FFMPEG} from '../encode/pinned-ffmpeg.js'
import {EngineError} from '../errors/engine-error.js'
import {readNpmConfig} from './npm-config.js'

export const BROWSER_MIRROR_ENV = 'ENGINE_BROWSER_MIRROR'
export const NPM_REGISTRY_ENV = 'ENGINE_NPM_REGISTRY'
/** A folder that serves the pinned ffmpeg archives by their published names (ffmpeg-7.0.2-amd64-static.tar.xz…). */
export const FFMPEG_MIRROR_ENV = 'ENGINE_FFMPEG_MIRROR'
export const DEFAULT_BROWSER_BASE_URL = 'https://storage.googleapis.com/chrome-for-testing-public'
export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org'

/** Where the downloads of `doctor --fix` and a first render come from. */
export interface DownloadMirrors {
  /** Base URL of the Chrome for Testing files (`<base>/<version>/<platform>/chrome-headless-shell-<platform>.zip`). */
  browser: string
  /** npm registry that serves the static ffmpeg/ffprobe packages. */
  npmRegistry: string
  /** A folder serving the pinned ffmpeg archives; undefined: the publisher's addresses. */
  ffmpeg?: string
}

const httpUrl = z.url({protocol: /^https?$/})

/**
 * Mirrors come from the environment only, never from a project's config: a project must not
 * choose where the programs engine runs are downloaded from. The npm registry falls back to the
 * one npm itself is told to use (npm_config_registry, the user's and the global npmrc: readNpmConfig).
 */
export function downloadMirrors(env: NodeJS.ProcessEnv = process.env): DownloadMirrors {
  return {
    browser: mirror(env, BROWSER_MIRROR_ENV, DEFAULT_BROWSER_BASE_URL, 'the folder that holds <version>/linux64/chrome-headless-shell-linux64.zip'),
    npmRegistry: env[NPM_REGISTRY_ENV] ? mirror(env, NPM_REGISTRY_ENV, DEFAULT_NPM_REGISTRY, 'an npm registry') : (npmConfigRegistry(env) ?? DEFAULT_NPM_REGISTRY),
    ffmpeg: env[FFMPEG_MIRROR_ENV]?.trim() ? mirror(env, FFMPEG_MIRROR_ENV, dirname(PINNED_FFMPEG.x86_64.urls[0]), `a folder that holds ${PINNED_FFMPEG.x86_64.archive}`) : undefined,
  }
}

function mirror(env: NodeJS.ProcessEnv, name: string, fallback: string, what: string): string {
  const value = env[name]?.trim()
  if (!value) return fallback
  if (!httpUrl.safeParse(value).success) {
    throw new EngineError('INVALID_CONFIG', `${name}: "${value}" is not an http(s) URL; set it to ${what} (for example ${fallback}), or unset it`, {field: name, value})
  }
  return value.replace(/\/+$/, '')
}

function npmConfigRegistry(env: NodeJS.ProcessEnv): string | undefined {
  const value = readNpmConfig(env).registry
  return value && httpUrl.safeParse(value).success ? value : undefined
}
