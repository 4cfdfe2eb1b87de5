import {execFile} from 'node:child_process'
import {join} from 'node:path'
import {z} from 'zod'
import {engineCacheDir} from '../browser/engine-cache-dir.js'
import {EngineError} from '../errors/engine-error.js'
import {stampedProbe} from '../files/stamped-probe-cache.js'

const cache = new Map<string, Promise<ReadonlySet<string>>>()

/**
 * Names of the bitstream filters this ffmpeg build has (`ffmpeg -bsfs`), read once per binary
 * (kept on disk in engine's cache until the binary changes).
 * Static builds older than ffmpeg 4.4 (the Lambda bundle's) lack `setts`.
 */
export function listBitstreamFilters(ffmpegPath: string, env: NodeJS.ProcessEnv = process.env): Promise<ReadonlySet<string>> {
  let result = cache.get(ffmpegPath)
  if (!result) {
    const file = join(engineCacheDir(env), 'probes', 'ffmpeg-bitstream-filters.json')
    result = stampedProbe({file, executablePath: ffmpegPath, schema: z.array(z.string()), probe: () => readFilters(ffmpegPath)}).then((names) => new Set(names))
    cache.set(ffmpegPath, result)
    result.catch(() => cache.delete(ffmpegPath))
  }
  return result
}

function readFilters(ffmpegPath: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile(ffmpegPath, ['-hide_banner', '-bsfs'], {timeout: 10_000, maxBuffer: 1024 * 1024}, (error, stdout) => {
      if (error) {
        reject(new EngineError('FFMPEG_NOT_FOUND', `${ffmpegPath} -bsfs failed: ${error.message.split('\n')[0]}`, {ffmpegPath}))
        return
      }
      resolve([...parseBitstreamFilterList(stdout)])
    })
  })
}

/** The list is a heading line ("Bitstream filters:") and one name per line. */
export function parseBitstreamFilterList(text: string): ReadonlySet<string> {
  return new Set(
    text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^[a-z0-9_]+$/.test(line)),
  )
}
