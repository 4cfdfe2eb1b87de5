import {execFile} from 'node:child_process'
import {EngineError} from '../errors/engine-error.js'

/** Video frames in a file, counted from its packets (demux only, no decode: cheap even for long files). */
export function probeFrameCount(ffprobePath: string, file: string): Promise<number> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', file]
  return new Promise((resolve, reject) => {
    execFile(ffprobePath, args, {timeout: 120_000}, (error, stdout, stderr) => {
      const count = Number.parseInt(stdout.trim(), 10)
      if (error || !Number.isFinite(count)) {
        // A crash (the npm ffprobe 4.1 on MPEG-TS) says nothing on stderr: name the signal.
        const signal = error?.signal ? ` (${ffprobePath} was killed by ${error.signal})` : ''
        reject(new EngineError('ENCODE_FAILED', `cannot count the frames of ${file}: ${(stderr || error?.message || stdout).trim()}${signal}`, {file, ...(error?.signal && {signal: error.signal})}))
        return
      }
      resolve(count)
    })
  })
}
