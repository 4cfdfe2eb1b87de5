/**
 * Where the function bundle keeps its parts, relative to the task root. The builder writes this
 * layout and the cold start reads it; deploy names the handler from it.
 */
export const BUNDLE_LAYOUT = {handler: 'handler.mjs', ffmpeg: 'bin/ffmpeg', ffprobe: 'bin/ffprobe', fonts: 'fonts', plugins: 'plugins', manifest: 'engine-bundle.json'} as const

/** Lambda's Handler setting: handler.mjs, export `handler`. */
export const BUNDLE_HANDLER = 'handler.handler'
