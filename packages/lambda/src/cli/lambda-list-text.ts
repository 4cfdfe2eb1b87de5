import type {RenderSummary} from '../lib/lambda/list-renders.js'
import type {SiteSummary} from '../lib/lambda/list-sites.js'

/** The human form of `lambda sites ls`: one aligned row per site. */
export function siteLines(sites: readonly SiteSummary[]): string[] {
  if (sites.length === 0) return ['No sites: `engine lambda sites create <projectDir>` uploads one']
  return table(
    ['SITE ID', 'FILES', 'SIZE', 'UPLOADED', 'ENTRY'],
    sites.map((site) =>
      site.complete ? [site.siteId, String(site.files), megabytes(site.bytes), site.createdAt ?? '', site.entry ?? ''] : [site.siteId, '-', '-', 'incomplete upload', '-'],
    ),
  )
}

/** The human form of `lambda renders ls`: one aligned row per render, then the errors of failed ones. */
export function renderLines(renders: readonly RenderSummary[]): string[] {
  if (renders.length === 0) return ['No renders yet: `engine lambda render <projectDir>` starts one']
  return table(
    ['RENDER ID', 'STATUS', 'STARTED', 'FRAMES', 'OUTPUT'],
    renders.map((render) => [
      render.renderId,
      render.status,
      render.startedAt ?? '',
      render.totalFrames === undefined ? '' : String(render.totalFrames),
      render.error ? `[${render.error.code}] ${render.error.message}` : `${render.outputKey ?? ''}${render.bytes === undefined ? '' : ` (${megabytes(render.bytes)})`}`,
    ]),
  )
}

function megabytes(bytes: number | undefined): string {
  return bytes === undefined ? '' : `${(bytes / 1e6).toFixed(2)} MB`
}

function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)))
  return [header, ...rows].map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  '))
}
