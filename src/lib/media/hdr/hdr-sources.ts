import type {ProbedMedia} from '../probe-media.js'
import type {HdrTransfer} from '../../plan/render-plan.js'

/**
 * The HDR transfer the sources call for: PQ when any source is PQ (`smpte2084`), else HLG when any
 * is HLG (`arib-std-b67`), else none. BT.2020 primaries alone do not make a source HDR.
 */
export function hdrTransferOf(sources: readonly ProbedMedia[]): HdrTransfer | undefined {
  const transfers = sources.map((source) => source.video?.colorTransfer)
  if (transfers.includes('smpte2084')) return 'pq'
  if (transfers.includes('arib-std-b67')) return 'hlg'
  return undefined
}
