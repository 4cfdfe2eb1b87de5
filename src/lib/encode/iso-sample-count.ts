import {open, type FileHandle} from 'node:fs/promises'

/** A movie header larger than this is not read into memory (a 10-hour 60 fps track needs ~10 MiB). */
const MAX_MOOV_BYTES = 64 * 1024 ** 2

interface Box {
  type: string
  /** Where its payload starts and ends, relative to the buffer or file it was read from. */
  start: number
  end: number
}

/**
 * Samples of the first video track of an ISO BMFF file (MP4, MOV), read from its sample size box:
 * what ffprobe's packet count of stream v:0 gives, without starting a process (a batch row's
 * output check cost an ffprobe start, 40-500 ms depending on the machine's load). Undefined when
 * the file is not laid out as a plain movie (fragmented, truncated, no video track): the caller
 * then counts with ffprobe.
 */
export async function isoVideoSampleCount(file: string): Promise<number | undefined> {
  let handle: FileHandle | undefined
  try {
    handle = await open(file, 'r')
    const moov = await readTopLevelBox(handle, 'moov')
    if (!moov) return undefined
    const boxes = childBoxes(moov, 0, moov.length)
    if (boxes.some((box) => box.type === 'mvex')) return undefined
    for (const trak of boxes.filter((box) => box.type === 'trak')) {
      const mdia = child(moov, trak, 'mdia')
      const hdlr = mdia && child(moov, mdia, 'hdlr')
      if (!hdlr || hdlr.end - hdlr.start < 12 || moov.toString('latin1', hdlr.start + 8, hdlr.start + 12) !== 'vide') continue
      const stbl = descend(moov, mdia, ['minf', 'stbl'])
      const sizes = stbl && (child(moov, stbl, 'stsz') ?? child(moov, stbl, 'stz2'))
      if (!sizes || sizes.end - sizes.start < 12) return undefined
      return moov.readUInt32BE(sizes.start + 8)
    }
    return undefined
  } catch {
    return undefined
  } finally {
    await handle?.close()
  }
}

/**
 * The payload of the first top-level box of `type`, walking every top-level box header to the end
 * of the file: a file whose last box runs past its end (an output cut short, its movie header
 * intact at the start) is not trusted, since its samples are not all there.
 */
async function readTopLevelBox(handle: FileHandle, type: string): Promise<Buffer | undefined> {
  const {size: fileSize} = await handle.stat()
  const header = Buffer.alloc(16)
  let found: Buffer | undefined
  let offset = 0
  while (offset < fileSize) {
    await readExactly(handle, header, Math.min(16, fileSize - offset), offset, fileSize)
    const box = boxAt(header, 0, Math.min(16, fileSize - offset), fileSize - offset)
    if (!box) return undefined
    if (box.type === type && !found) {
      const length = box.end - box.start
      if (length > MAX_MOOV_BYTES) return undefined
      found = Buffer.alloc(length)
      await readExactly(handle, found, length, offset + box.start, fileSize)
    }
    offset += box.end
  }
  return found
}

async function readExactly(handle: FileHandle, buffer: Buffer, length: number, position: number, fileSize: number): Promise<void> {
  const wanted = Math.min(length, fileSize - position)
  const {bytesRead} = await handle.read(buffer, 0, wanted, position)
  if (bytesRead !== wanted) throw new Error('short read')
}

/** The box whose header starts at `offset` of `buffer` (`available` bytes readable there, `remaining` until its parent ends). */
function boxAt(buffer: Buffer, offset: number, available: number, remaining: number): Box | undefined {
  if (available < 8) return undefined
  const size32 = buffer.readUInt32BE(offset)
  const type = buffer.toString('latin1', offset + 4, offset + 8)
  let headerSize = 8
  let size = size32
  if (size32 === 1) {
    if (available < 16) return undefined
    size = Number(buffer.readBigUInt64BE(offset + 8))
    headerSize = 16
  } else if (size32 === 0) {
    size = remaining
  }
  if (size < headerSize || size > remaining) return undefined
  return {type, start: offset + headerSize, end: offset + size}
}

function childBoxes(buffer: Buffer, start: number, end: number): Box[] {
  const boxes: Box[] = []
  let offset = start
  while (offset + 8 <= end) {
    const box = boxAt(buffer, offset, end - offset, end - offset)
    if (!box) break
    boxes.push(box)
    offset = box.end
  }
  return boxes
}

function child(buffer: Buffer, parent: Box, type: string): Box | undefined {
  return childBoxes(buffer, parent.start, parent.end).find((box) => box.type === type)
}

function descend(buffer: Buffer, parent: Box, path: readonly string[]): Box | undefined {
  let box: Box | undefined = parent
  for (const type of path) box = box && child(buffer, box, type)
  return box
}
