import type {CaptureImageFormat} from '../plan/render-plan.js'
import {deepFreeze} from '../plan/deep-freeze.js'

/**
 * Browser pixels are sRGB (BT.709 primaries). JPEG stores them with the BT.601 full-range matrix;
 * players read untagged or 709-tagged video with the BT.709 limited-range matrix. Converting the
 * matrix (not the primaries) keeps colours exact: pure red stays (254, 0, 0) instead of drifting.
 */
export const BT709_TAGS: readonly string[] = deepFreeze([
  '-colorspace', 'bt709',
  '-color_primaries', 'bt709',
  '-color_trc', 'bt709',
  '-color_range', 'tv',
])

/** The `-vf` chain from decoded captured images to BT.709 limited-range `pixFmt`. */
export function bt709Filter(imageFormat: CaptureImageFormat, pixFmt: string): string {
  if (imageFormat === 'jpeg') {
    // The colorspace filter converts the YUV matrix directly, about 4x cheaper than swscale at 1080p.
    const convert = 'colorspace=ispace=bt470bg:iprimaries=bt709:itrc=bt709:irange=pc:all=bt709:range=tv:format=yuv420p'
    return pixFmt === 'yuv420p' ? convert : `${convert},format=${pixFmt}`
  }
  return `scale=out_color_matrix=bt709:out_range=tv:flags=accurate_rnd,format=${pixFmt}`
}
