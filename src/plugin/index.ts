/**
 * The public plugin API (`<package>/plugin`): what a format or GPU encoder plugin is, and the
 * helpers the built-in ones are written with. Built-in plugins import only this module, so
 * anything they can do a third-party plugin can too.
 *
 * A plugin is an oclif plugin whose package.json declares hooks:
 *   "oclif": {"hooks": {"engine:formats": "./formats.js", "engine:gpu-encoders": "./gpu.js"}}
 * Each hook returns an array of FormatPlugin (or GpuEncoderPlugin). The hook's options carry this
 * module as `api`, so a plugin written in plain JavaScript uses the engine it runs in without
 * depending on the package at run time.
 *
 * Versioning: `apiVersion` grows by one whenever a change would break an existing plugin; fields
 * are only ever added between versions. A plugin may declare the `apiVersion` it was written for,
 * and an engine older than that refuses it with a message instead of failing mid-render.
 */
export * from './api.js'

/** What the `engine:formats` / `engine:gpu-encoders` hooks receive besides oclif's `config`. */
export interface EngineHookOptions {
  /** This API, from the engine that runs the hook. */
  api: typeof import('./api.js')
}
