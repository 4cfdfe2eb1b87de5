import type {FormatPlugin} from './format-plugin.js'
import {listFormats} from './format-registry.js'
import {listEncoders} from './list-encoders.js'
import type {EncodeSettings} from './rate-control.js'

export interface FormatEncoderStatus {
  format: string
  required: string[]
  missing: string[]
  available: boolean
}

const DEFAULT_ENCODE: EncodeSettings = {quality: 'standard', gifLoop: 0, gpu: false}

/** For `engine doctor`: which encoders each format needs and whether this ffmpeg has them. */
export async function checkFormatEncoders(
  ffmpegPath: string,
  formats: readonly FormatPlugin[] = listFormats(),
  encode: EncodeSettings = DEFAULT_ENCODE,
): Promise<FormatEncoderStatus[]> {
  const encoders = await listEncoders(ffmpegPath)
  return formats.map((plugin) => {
    const required = plugin.requiredEncoders(encode)
    const missing = required.filter((name) => !encoders.has(name))
    return {format: plugin.name, required, missing, available: missing.length === 0}
  })
}
