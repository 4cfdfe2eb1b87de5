import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {downloadProgress} from 'html-video-engine/internal/cli/download-progress.js'
import {listInstalledPlugins} from 'html-video-engine/internal/lib/config/installed-plugins.js'
import {FUNCTION_ARCHES, FUNCTION_CHROMIUM, functionChromiumPackName, type FunctionArch} from 'html-video-engine/internal/lib/browser/function-chromium.js'
import {buildLambdaBundle, DEFAULT_BUNDLE_NAME, mib} from '../../lib/lambda/bundle/build-lambda-bundle.js'
import type {BinaryInfo} from '../../lib/lambda/bundle/encoder-parts.js'
import {PINNED_FFMPEG} from 'html-video-engine/internal/lib/encode/pinned-ffmpeg.js'

export default class LambdaBundle extends BaseCommand {
  static override summary = 'Build the render function bundle (zip) that `lambda deploy` uploads'
  static override description =
    'Compiles the handler into one file with esbuild and adds @sparticuz/chromium, static Linux ffmpeg and ffprobe, the render profile\'s fonts, the page runtime and the hooks of your installed and linked plugins. ' +
    'Fails above 248 MiB unzipped (Lambda\'s limit is 250 MiB), naming the largest parts. `lambda deploy` without --code runs this itself. ' +
    `Every binary is checked to be built for --arch. ffmpeg and ffprobe are the pinned static build ${PINNED_FFMPEG.x86_64.version} (${PINNED_FFMPEG.x86_64.urls[0]} or its arm64 twin, sha256-checked, kept in the engine cache after the first download; a mirror: ENGINE_FFMPEG_MIRROR), the same build \`engine ffmpeg install\` gives --profile deterministic, so \`lambda local --bundle\` gives the same file as \`engine render --profile deterministic\`. ` +
    'When it cannot be downloaded, the bundle carries the npm packages\' older builds and says so; --ffmpeg/--ffprobe carry a build you name.'
  static override examples = [
    '<%= config.bin %> lambda bundle',
    '<%= config.bin %> lambda bundle --output dist/engine-lambda.zip --json',
    '<%= config.bin %> lambda bundle --ffmpeg ffmpeg-7.0.2-amd64-static/ffmpeg --ffprobe ffmpeg-7.0.2-amd64-static/ffprobe',
    `<%= config.bin %> lambda bundle --arch arm64 --chromium-pack ${functionChromiumPackName('arm64')}`,
  ]
  static override flags = {
    output: Flags.string({char: 'o', description: 'where to write the zip', default: DEFAULT_BUNDLE_NAME}),
    arch: Flags.string({description: 'function architecture: x86_64 (default) or arm64 (needs --chromium-pack; the pinned ffmpeg is downloaded for it)', options: [...FUNCTION_ARCHES], default: 'x86_64'}),
    ffmpeg: Flags.string({description: `a static Linux ffmpeg to carry instead of the pinned build ${PINNED_FFMPEG.x86_64.version} (with --ffprobe)`, dependsOn: ['ffprobe']}),
    ffprobe: Flags.string({description: 'the ffprobe of the same build (with --ffmpeg)', dependsOn: ['ffmpeg']}),
    'chromium-pack': Flags.string({description: `a Chromium pack from @sparticuz/chromium's releases (${functionChromiumPackName('arm64')} for arm64); its files replace the npm package's x64 build`}),
    json: Flags.boolean({description: 'print the bundle report as JSON'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaBundle)
    const progress = downloadProgress()
    const report = await buildLambdaBundle({
      output: flags.output,
      plugins: await listInstalledPlugins(),
      arch: flags.arch as FunctionArch,
      ffmpegPath: flags.ffmpeg,
      ffprobePath: flags.ffprobe,
      chromiumPack: flags['chromium-pack'],
      onWarning: (message) => this.warn(message),
      onProgress: progress.update,
    }).finally(() => progress.end())
    if (flags.json) {
      this.log(JSON.stringify(report))
      return
    }
    this.log(`${report.path}: ${mib(report.zipBytes)} zipped, ${mib(report.unzippedBytes)} unzipped (limit 248 MiB)`)
    this.log(`sha256 ${report.sha256}`)
    this.log(`arch ${report.arch}`)
    this.log(`chromium ${report.chromium.package}@${report.chromium.version}${report.chromium.pack ? ` (${report.chromium.pack})` : ''}`)
    this.log(`ffmpeg ${report.ffmpeg.version ?? '?'} (${origin(report.ffmpeg)}; ${report.ffmpeg.encoders?.join(', ') ?? `encoders not checked: it does not run on this machine`})`)
    this.log(`ffprobe ${report.ffprobe.version ?? '?'} (${origin(report.ffprobe)})`)
    if (report.chromium.version !== FUNCTION_CHROMIUM.version) {
      this.warn(`${report.chromium.package}@${report.chromium.version} is not the build --profile deterministic captures with (${FUNCTION_CHROMIUM.version}): local renders will not be the function's file; install ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}`)
    }
    for (const binary of [report.ffmpeg, report.ffprobe]) {
      if (binary.dynamic) this.warn(`${origin(binary)} is dynamically linked: it runs on Lambda only if its shared libraries are there; carry a static build`)
    }
    for (const plugin of report.plugins) this.log(`plugin ${plugin.name}@${plugin.version}: ${plugin.hooks.map((entry) => entry.hook).join(', ') || 'no engine hooks'}`)
    for (const part of report.parts) this.log(`  ${mib(part.bytes).padStart(10)}  ${part.part}`)
  }
}

function origin(binary: BinaryInfo): string {
  if (binary.pinned) return `pinned static build, ${binary.pinned.archive} sha256 ${binary.pinned.archiveSha256.slice(0, 16)}…`
  return binary.path ? `${binary.path}, sha256 ${binary.sha256.slice(0, 16)}…` : `${binary.package}@${binary.packageVersion}, the fallback`
}
