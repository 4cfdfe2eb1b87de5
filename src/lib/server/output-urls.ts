import {basename} from 'node:path'
import type {FormatPlugin} from '../encode/format-plugin.js'

/**
 * Where the finished output is fetched. A format with companion files (HLS) is addressed by its
 * file name, so that the names it gives its companions resolve beside it: a player given
 * `/render/<id>/output/clip.m3u8` fetches `/render/<id>/output/clip_00000.ts`.
 */
export function outputUrl(requestId: string, outputPath: string, format: FormatPlugin): string {
  const base = `/render/${requestId}/output`
  return format.worker !== 'frame-files' && format.companionFilePattern ? `${base}/${encodeURIComponent(basename(outputPath))}` : base
}

export function posterUrl(requestId: string): string {
  return `/render/${requestId}/poster`
}
