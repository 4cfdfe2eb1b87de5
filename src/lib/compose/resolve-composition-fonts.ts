import type {FontStyle} from '../fonts/font-catalog.js'
import type {FontFinding} from '../fonts/font-findings.js'
import type {FamilyResolution} from '../fonts/resolve-fonts.js'
import {compileComposition} from './compile-composition.js'

export interface ResolvedFamilyReport {
  family: string
  source: FamilyResolution['source']
  where: string
  weights: number[]
  styles: FontStyle[]
  generics: string[]
  packageName?: string
  version?: string
  /** Faces (weight x style x subset) served to the page. */
  faces: number
  /** A system or proprietary family drawn with a bundled stand-in, and why that one. */
  substitute?: FamilyResolution['substitute']
}

export interface FontResolution {
  composition: string
  families: ResolvedFamilyReport[]
  removedUrls: string[]
  findings: FontFinding[]
}

/** `engine fonts resolve`: each family a composition asks for, the face it gets and where from. */
export async function resolveCompositionFonts(path: string, env: NodeJS.ProcessEnv = process.env): Promise<FontResolution> {
  const compiled = await compileComposition(path, {env, downloadFonts: true})
  const {fonts} = compiled
  return {
    composition: compiled.file,
    families: fonts.families.map(({entry: _entry, ...family}) => ({
      ...family,
      faces: fonts.runtime.faces.filter((face) => face.family === family.family).length,
    })),
    removedUrls: fonts.removedUrls,
    findings: fonts.findings,
  }
}
