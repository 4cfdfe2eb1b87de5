import {execFile} from 'node:child_process'
import {EngineError} from '../errors/engine-error.js'

const cache = new Map<string, Promise<ReadonlySet<string>>>()

/** Names of the encoders this ffmpeg build has (`ffmpeg -encoders`), read once per binary. */
export function listEncoders(ffmpegPath: string): Promise<ReadonlySet<string>> {
  let result = cache.get(ffmpegPath)
  if (!result) {
    result = readEncoders(ffmpegPath)
    cache.set(ffmpegPath, result)
    result.catch(() => cache.delete(ffmpegPath))
  }
  return result
}

function readEncoders(ffmpegPath: string): Promise<ReadonlySet<string>> {
  return new Promise((resolve, reject) => {
    execFile(ffmpegPath, ['-hide_banner', '-encoders'], {timeout: 10_000, maxBuffer: 4 * 1024 * 1024}, (error, stdout) => {
      if (error) {
        reject(new EngineError('FFMPEG_NOT_FOUND', `${ffmpegPath} -encoders failed: ${error.message.split('\n')[0]}`, {ffmpegPath}))
        return
      }
      resolve(parseEncoderList(stdout))
    })
  })
}

/** Lines look like ` V....D libx264   libx264 H.264 / AVC ...`: six flag columns, then the name. */
export function parseEncoderList(text: string): ReadonlySet<string> {
  const names = new Set<string>()
  for (const line of text.split('\n')) {
    const match = /^\s*[VAS][A-Z.]{5}\s+(\S+)\s/.exec(line)
    if (match && match[1] !== '=') names.add(match[1])
  }
  return names
}
