import type {ResolveHookSync} from 'node:module'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'

/** The package name a plugin imports the engine by (`html-video-engine`, `html-video-engine/plugin`…). */
const ENGINE_SPECIFIER = /^html-video-engine(?:\/|$)/

let hostPackageJson: string | undefined

/** Module hooks: `root` is the engine that is running. */
export function initialize(data: {root: string}): void {
  hostPackageJson = pathToFileURL(join(data.root, 'package.json')).href
}

/**
 * Resolves the engine's package name as the running engine's own package (a self-reference from
 * its package.json), wherever the importing module lives: a plugin installed into the data
 * directory, or the serverless companion, has no engine of its own and must use this one. (In a
 * loader thread, module.register's fallback, nextResolve answers a promise, passed on as it is.)
 */
export const resolve: ResolveHookSync = (specifier, context, nextResolve) =>
  hostPackageJson !== undefined && ENGINE_SPECIFIER.test(specifier) ? nextResolve(specifier, {...context, parentURL: hostPackageJson}) : nextResolve(specifier, context)
