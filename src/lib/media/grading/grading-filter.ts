import {createHash} from 'node:crypto'
import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import type {PageMediaElement} from '../../runtime/runtime-media.js'
import {gradeColor} from './grade-color.js'
import {resolveColorGrading, type ResolvedGrading} from './resolve-color-grading.js'
import {vignetteFilter} from './vignette-filter.js'

/** Grid points per axis of the LUT; tetrahedral interpolation between them is visually exact. */
export const LUT_SIZE = 33

/** The grade sampled on a LUT_SIZE^3 grid, as an Adobe .cube file (red varies fastest). */
export function gradingCube(grading: ResolvedGrading): string {
  const lines = [`LUT_3D_SIZE ${LUT_SIZE}`, 'DOMAIN_MIN 0 0 0', 'DOMAIN_MAX 1 1 1']
  const step = 1 / (LUT_SIZE - 1)
  for (let b = 0; b < LUT_SIZE; b++) {
    for (let g = 0; g < LUT_SIZE; g++) {
      for (let r = 0; r < LUT_SIZE; r++) {
        const out = gradeColor([r * step, g * step, b * step], grading.adjust, grading.intensity)
        lines.push(out.map((channel) => channel.toFixed(6)).join(' '))
      }
    }
  }
  return lines.join('\n') + '\n'
}

/**
 * The ffmpeg filter that applies an element's `data-color-grading` to its frames (a 3D LUT in
 * `directory`), or undefined when it has none. `key` identifies the grade for the frame cache.
 */
export async function gradingFilterFor(element: PageMediaElement, directory: string): Promise<{chain: string; key: string} | undefined> {
  if (element.colorGrading === null || element.colorGrading.trim() === '') return undefined
  const grading = resolveColorGrading(element.colorGrading, element.variables, element.element)
  if (!grading) return undefined
  const cube = gradingCube(grading)
  const lutKey = createHash('sha256').update(cube).digest('hex').slice(0, 32)
  const lutDirectory = join(directory, 'grading')
  await mkdir(lutDirectory, {recursive: true})
  const path = join(lutDirectory, `${lutKey}.cube`)
  await writeFile(path, cube)
  const filters = [`format=rgb24`, `lut3d=file=${escapeFilterPath(path)}:interp=tetrahedral`]
  if (grading.vignette > 0) filters.push(vignetteFilter(grading.vignette))
  return {chain: filters.join(','), key: `lut3d:${lutKey}` + (grading.vignette > 0 ? `,vignette:${grading.vignette.toFixed(6)}` : '')}
}

/** A path inside a filter option, quoted so that `:` and `,` stay literal (the render's scratch paths hold no quote). */
function escapeFilterPath(path: string): string {
  return `'${path.replace(/\\/g, '/')}'`
}
