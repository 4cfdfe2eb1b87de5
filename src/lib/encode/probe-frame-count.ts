import {execFile} from 'node:child_process'
import {EngineError} from '../errors/engine-error.js'
import {processFailure} from '../files/process-failure.js'

/** Video frames in a file, counted from its packets (demux only, no decode: cheap even for long files). */
export function probeFrameCount(ffprobePath: string, file: string): Promise<number> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-count_packets', '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', file]
  return new Promise((resolve, reject) => {
    execFile(ffprobePath, args, {timeout: 120_000}, (error, stdout, stderr) => {
      const count = Number.parseInt(stdout.trim(), 10)
      if (error || !Number.isFinite(count)) {
        const failure = processFailure(ffprobePath, error ? Object.assign(error, {stderr}) : {stderr, message: `ffprobe printed no frame count (${stdout.trim() || 'nothing'})`})
        reject(new EngineError('ENCODE_FAILED', `cannot count the frames of ${file}: ${failure.text}`, {file, ...(failure.signal && {signal: failure.signal})}))
        return
      }
      resolve(count)
    })
  })
}
