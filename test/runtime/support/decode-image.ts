import {spawnSync} from 'node:child_process'

export interface Rgba {
  width: number
  height: number
  data: Buffer
}

/** Decodes a JPEG or PNG to raw RGBA with ffmpeg (a real decoder, as the encoder stage will see it). */
export function decodeRgba(image: Buffer, width: number, height: number): Rgba {
  const isPng = image.subarray(1, 4).toString('latin1') === 'PNG'
  const result = spawnSync('ffmpeg', ['-v', 'error', '-f', isPng ? 'png_pipe' : 'jpeg_pipe', '-i', '-', '-f', 'rawvideo', '-pix_fmt', 'rgba', '-'], {
    input: image,
    maxBuffer: 64 * 1024 * 1024,
  })
  if (result.status !== 0) throw new Error(`ffmpeg could not decode the image: ${result.stderr.toString()}`)
  if (result.stdout.length !== width * height * 4) throw new Error(`decoded ${result.stdout.length} bytes, expected ${width}x${height} RGBA`)
  return {width, height, data: result.stdout}
}

export function pixel(image: Rgba, x: number, y: number): [number, number, number, number] {
  const offset = (y * image.width + x) * 4
  return [image.data[offset], image.data[offset + 1], image.data[offset + 2], image.data[offset + 3]]
}

/** True when every channel is within `tolerance` (JPEG is lossy). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 12): boolean {
  return expected.every((value, index) => Math.abs(actual[index] - value) <= tolerance)
}
