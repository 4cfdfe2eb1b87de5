import {writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {isoVideoSampleCount} from '../../src/lib/encode/iso-sample-count.js'
import {useScratchDir} from '../support/scratch-dir.js'

/** An ISO BMFF box: a 32-bit size (or `size` as given), its type and payload. */
function box(type: string, payload: Buffer = Buffer.alloc(0), size?: number): Buffer {
  const header = Buffer.alloc(8)
  header.writeUInt32BE(size ?? 8 + payload.length)
  header.write(type, 4, 'latin1')
  return Buffer.concat([header, payload])
}

function videoTrak(samples: number): Buffer {
  const hdlr = Buffer.alloc(24)
  hdlr.write('vide', 8, 'latin1')
  const stsz = Buffer.alloc(12)
  stsz.writeUInt32BE(samples, 8)
  return box('trak', box('mdia', Buffer.concat([box('hdlr', hdlr), box('minf', box('stbl', box('stsz', stsz)))])))
}

// An output adopted on --resume, or one downloaded from a server (`render --server`), is checked
// with this parser: its bytes are whatever is on disk or came over the network.
describe('the MP4 sample counter on hostile files', () => {
  const scratch = useScratchDir('engine-iso-hostile-')
  const file = async (name: string, bytes: Buffer) => {
    const path = join(scratch(), name)
    await writeFile(path, bytes)
    return path
  }

  it('counts a well-formed minimal movie (the fixtures below are otherwise valid)', async () => {
    expect(await isoVideoSampleCount(await file('ok.mp4', Buffer.concat([box('ftyp', Buffer.alloc(8)), box('moov', videoTrak(42))])))).toBe(42)
  })

  it('gives up, without reading past the file or allocating what a header claims, on lying sizes', async () => {
    const huge = Buffer.alloc(16)
    huge.writeUInt32BE(1)
    huge.write('moov', 4, 'latin1')
    huge.writeBigUInt64BE(2n ** 62n, 8)
    const cases: Array<[string, Buffer]> = [
      // A moov claiming 2^62 bytes (64-bit size) in a 16-byte file.
      ['huge-64.mp4', huge],
      // A moov claiming 4 GiB in a small file.
      ['huge-32.mp4', box('moov', videoTrak(1), 0xffff_fff0)],
      // Sizes under the header's own size would loop for ever if taken as they are.
      ['tiny-size.mp4', Buffer.concat([box('ftyp', Buffer.alloc(8), 4), box('moov', videoTrak(1))])],
      ['zero-child.mp4', box('moov', Buffer.concat([box('trak', Buffer.alloc(32), 0)]))],
      // A child box running past its parent.
      ['overrun.mp4', box('moov', box('trak', Buffer.alloc(4), 4096))],
      // An sample size box too short to hold a count.
      ['short-stsz.mp4', box('moov', box('trak', box('mdia', Buffer.concat([box('hdlr', Buffer.from('\0\0\0\0\0\0\0\0vide')), box('minf', box('stbl', box('stsz', Buffer.alloc(4))))]))))],
      // A fragmented movie's samples are in its fragments: not counted here.
      ['fragmented.mp4', box('moov', Buffer.concat([box('mvex'), videoTrak(3)]))],
      // No video track at all.
      ['no-video.mp4', box('moov', box('trak', box('mdia', box('hdlr', Buffer.from('\0\0\0\0\0\0\0\0soun')))))],
    ]
    for (const [name, bytes] of cases) {
      expect(await isoVideoSampleCount(await file(name, bytes)), name).toBeUndefined()
    }
  })

  it('walks a file of two thousand empty boxes before the movie in bounded time and memory', async () => {
    const padding = Buffer.concat(Array.from({length: 2000}, () => box('free')))
    expect(await isoVideoSampleCount(await file('padded.mp4', Buffer.concat([padding, box('moov', videoTrak(7))])))).toBe(7)
  })
})
