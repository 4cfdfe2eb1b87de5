import {Flags} from '@oclif/core'
import {BaseCommand} from '../../cli/base-command.js'
import {downloadProgress} from '../../cli/download-progress.js'
import {hostFfmpegArch, PINNED_FFMPEG, type PinnedFfmpegArch} from '../../lib/encode/pinned-ffmpeg.js'
import {EngineError} from '../../lib/errors/engine-error.js'
import {downloadMirrors, FFMPEG_MIRROR_ENV} from '../../lib/setup/download-mirrors.js'
import {installPinnedFfmpeg} from '../../lib/setup/install-pinned-ffmpeg.js'

const BUILD = PINNED_FFMPEG.x86_64

export default class FfmpegInstall extends BaseCommand {
  static override summary = `Download the pinned static ffmpeg/ffprobe ${BUILD.version} that the serverless function carries into the engine cache`
  static override description =
    `--profile deterministic encodes with it, so a local render is the same file as a distributed one, and \`lambda bundle\` carries it. ` +
    `The archive (${BUILD.archive}, or its arm64 twin) comes from ${BUILD.urls[0]} or, when that folder has moved on to a newer release, ${BUILD.urls[1]}; ` +
    `its sha256 is checked before anything in it is read, and only ffmpeg and ffprobe are taken. Behind a proxy, serve the archive from a folder named in ${FFMPEG_MIRROR_ENV}. ` +
    'Nothing is downloaded when the cache already holds the build.'
  static override examples = ['<%= config.bin %> ffmpeg install', '<%= config.bin %> ffmpeg install --json', '<%= config.bin %> ffmpeg install --arch arm64']
  static override flags = {
    arch: Flags.string({description: "the build's architecture, in Lambda's names (default: this machine's)", options: ['x86_64', 'arm64']}),
    json: Flags.boolean({description: 'print {version, arch, ffmpegPath, ffprobePath, sha256, url, source} as JSON (progress stays on stderr)'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(FfmpegInstall)
    const arch = (flags.arch as PinnedFfmpegArch | undefined) ?? hostFfmpegArch()
    if (!arch) {
      throw new EngineError('INVALID_FLAG', `the pinned ffmpeg is a Linux build (x86_64 or arm64), and this is ${process.platform}-${process.arch}: pass --arch x86_64 or --arch arm64 to fetch one for a Lambda bundle`, {field: 'arch'})
    }
    const pinned = PINNED_FFMPEG[arch]
    const progress = downloadProgress()
    const installed = await installPinnedFfmpeg(pinned, {mirror: downloadMirrors().ffmpeg, onProgress: (done, total) => progress.update(pinned.archive, done, total)}).finally(() => progress.end())
    const result = {version: pinned.version, arch, ffmpegPath: installed.ffmpegPath, ffprobePath: installed.ffprobePath, sha256: pinned.sha256, url: installed.record.url, source: installed.source}
    if (flags.json) this.log(JSON.stringify(result))
    else this.log(`ffmpeg ${pinned.version} (${arch}, ${installed.source === 'cache' ? 'already in the cache' : `from ${installed.record.url}`}): ${installed.ffmpegPath}, ${installed.ffprobePath}`)
  }
}
