import type {FrameFilesFormat} from '../../src/plugin/index.js'

/** RGBA PNG per frame, exactly as the browser captured it; files are named by 0-based frame index. */
export const pngSequenceFormat: FrameFilesFormat = {
  name: 'png-sequence',
  mimeType: 'image/png',
  description: 'one RGBA PNG per frame: <output>/frame_000000.png, frame_000001.png, ...',
  alpha: true,
  audio: 'sidecar',
  evenDimensions: false,
  rateControl: false,
  gpu: false,
  worker: 'frame-files',
  requiredEncoders: () => [],
  frameFileName: (index) => `frame_${String(index).padStart(6, '0')}.png`,
  frameFilePattern: /^frame_\d{6,}\.png$/,
}
