import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {ENCODER_PRIORITY} from '../../src/lib/encode/ffmpeg-segment-encoder.js'
import {openSegmentEncoder} from '../../src/lib/encode/segment-encoder.js'
import {descendants} from '../support/child-processes.js'
import {until} from '../support/until.js'
import {ffmpeg, makeFrames, probeVideoStream, testPlan, useScratchDir} from './support/encode-fixtures.js'

/** The nice value of every thread of a process (Linux /proc). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
  })
}

describe.runIf(process.platform === 'linux')('segment encoders', () => {
  const scratch = useScratchDir()

  it('run below normal priority on every thread, so that capture never waits behind them, and still encode every frame', async () => {
    expect(ENCODER_PRIORITY).toBe(10)
    const plan = testPlan({format: 'mp4', totalFrames: 200, encode: {quality: 'standard'}})
    const frames = await makeFrames({count: 200, imageFormat: 'jpeg'})
    const output = join(scratch(), 'segment.mp4')
    const encoder = await openSegmentEncoder({plan, range: {start: 0, end: 200}, outputPath: output, ffmpeg: await ffmpeg(), threads: 2})
    for (const frame of frames.slice(0, 190)) await encoder.write(frame)
    const encoderPid = async () => (await descendants()).find((entry) => entry.name === 'ffmpeg')?.pid
    let pid: number | undefined
    // x264 starts its threads once ffmpeg has probed the input (up to 5 s of frames).
    expect(await until(async () => (pid = await encoderPid()) !== undefined && threadNiceValues(pid).length > 2)).toBe(true)
    expect(new Set(threadNiceValues(pid!))).toEqual(new Set([ENCODER_PRIORITY]))
    for (const frame of frames.slice(190)) await encoder.write(frame)
    await encoder.end()
    expect((await probeVideoStream(output)).nb_read_frames).toBe('200')
  })
})
