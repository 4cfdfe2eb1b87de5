/**
 * The files of a new format plugin (`engine plugins new`): a package that works as generated
 * (a format that writes H.264 in Matroska under the plugin's own format name), to be edited.
 * The engine is an optional peer dependency: at run time a plugin uses the API the engine hands
 * its hook (`options.api`), so installing the plugin never installs a second engine.
 */
export function pluginFiles(packageName: string, formatName: string, engine: {name: string; version: string}): Record<string, string> {
  const packageJson = {
    name: packageName,
    version: '0.1.0',
    description: `${engine.name} plugin: adds --format ${formatName}`,
    type: 'module',
    license: 'MIT',
    keywords: ['html-video-engine-plugin', 'oclif-plugin'],
    files: ['formats.js', 'README.md'],
    oclif: {hooks: {'engine:formats': './formats.js'}},
    peerDependencies: {[engine.name]: `>=${engine.version}`},
    peerDependenciesMeta: {[engine.name]: {optional: true}},
  }
  return {
    'package.json': `${JSON.stringify(packageJson, null, 2)}\n`,
    'formats.js': formatsJs(formatName, engine.name),
    'README.md': readme(packageName, formatName),
  }
}

function formatsJs(formatName: string, engineName: string): string {
  return `// The \`engine:formats\` hook: returns the formats this plugin adds. The engine passes its plugin
// API as \`api\` (the same module as \`${engineName}/plugin\`), so this file needs no build step
// and no run-time dependency on the engine. Types (for editors and tsc --checkJs) come from the
// types-only entry \`${engineName}/plugin-types\`.

/** @typedef {import('${engineName}/plugin-types').EngineHookOptions} EngineHookOptions */
/** @typedef {import('${engineName}/plugin-types').FormatPlugin} FormatPlugin */

/**
 * @param {EngineHookOptions} options
 * @returns {Promise<FormatPlugin[]>}
 */
export default async function formats({api}) {
  return [
    {
      name: ${JSON.stringify(formatName)},
      description: 'H.264 in Matroska (edit me)',
      apiVersion: 1,
      // Sent by engine serve as the Content-Type of the output.
      mimeType: 'video/x-matroska',
      alpha: false,
      audio: 'aac',
      evenDimensions: true,
      rateControl: true,
      gpu: false,
      // Each capture worker encodes its frames into a segment; assembly joins them without re-encoding.
      worker: 'video-segment',
      extension: '.mkv',
      segmentExtension: '.mp4',
      requiredEncoders: () => ['libx264'],
      segmentArgs: ({plan}) => ({
        input: [],
        output: [
          '-vf', api.bt709Filter(plan.capture.imageFormat, 'yuv420p'),
          ...api.x264Args(plan.encode), ...api.BT709_TAGS,
          '-video_track_timescale', String(api.trackTimescale(plan.fps)),
          '-f', 'mp4',
        ],
      }),
      async assemble(context) {
        await context.ffmpeg([...(await context.copySegments()), '-f', 'matroska', context.outputPath])
      },
      // The output is checked to hold every frame, counted with ffprobe. A format ffprobe cannot
      // count gives its own counter (countFrames: async (path) => n); one whose output is not a
      // frame sequence opts out (countFrames: false).
    },
  ]
}
`
}

function readme(packageName: string, formatName: string): string {
  return `# ${packageName}

Adds \`--format ${formatName}\` to \`engine\`.

\`\`\`sh
engine plugins link .                 # use it from this directory while you work on it
engine render composition.html --format ${formatName}
npm pack && engine plugins install ./${packageName.replace(/^@/, '').replace('/', '-')}-0.1.0.tgz
\`\`\`

The engine is an optional peer dependency: the plugin uses the API its hook receives
(\`options.api\`), so installing it never installs a second engine. See the engine's
docs/guides/plugins.md.
`
}
