import {HDR_FORMAT} from '../plan/render-options.js'
import type {HdrTransfer} from '../plan/render-plan.js'


export interface HdrOutputRequest {
  /** `--hdr`: HDR even without HDR sources. */
  hdr: boolean
  /** `--sdr`: SDR even with HDR sources. */
  sdr: boolean
  format: string
  gpu: boolean
  /** What the probed sources call for (PreparedMedia.hdrTransfer). */
  sources?: HdrTransfer
}

export interface HdrOutputWarning {
  code: 'hdr-sources-rendered-sdr'
  message: string
}

export interface HdrOutputDecision {
  /** Transfer of the output, or undefined for SDR. */
  transfer?: HdrTransfer
  warning?: HdrOutputWarning
}

/**
 * Whether the output is HDR, and in which transfer. `--hdr` forces it (in the sources' transfer,
 * else PQ), `--sdr` rules it out, and otherwise it follows the sources. Sources alone never fail a
 * render: a format or encoder that cannot carry HDR renders SDR and says so. `--hdr` with such a
 * format or `--gpu` was refused when the options were parsed.
 */
export function decideHdrOutput(request: HdrOutputRequest): HdrOutputDecision {
  if (request.sdr) return {}
  if (request.hdr) return {transfer: request.sources ?? 'pq'}
  if (!request.sources) return {}
  const kind = request.sources === 'pq' ? 'PQ' : 'HLG'
  const why =
    request.format !== HDR_FORMAT
      ? `--format ${request.format} carries SDR only (HDR output is mp4)`
      : request.gpu
        ? '--gpu encoders write 8-bit H.264'
        : undefined
  if (why === undefined) return {transfer: request.sources}
  return {
    warning: {
      code: 'hdr-sources-rendered-sdr',
      message: `the composition has ${kind} HDR sources but renders SDR: ${why}; their frames are tone-mapped to SDR`,
    },
  }
}
