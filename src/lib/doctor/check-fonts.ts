import {listFonts} from '../fonts/list-fonts.js'
import type {DoctorCheck} from './doctor-check.js'

/** Where renders get fonts: the bundled families (fonts/), the font cache, and the generic mapping. */
export async function checkFonts(env: NodeJS.ProcessEnv = process.env): Promise<DoctorCheck> {
  const list = await listFonts(env)
  const bundled = list.families.filter((family) => family.source === 'bundled')
  const cached = list.families.filter((family) => family.source === 'cache')
  const missingGenerics = Object.entries(list.generics).filter(([, face]) => !list.families.some((family) => family.family === face))
  return {
    name: 'fonts',
    status: missingGenerics.length > 0 ? 'warning' : 'ok',
    required: false,
    summary:
      `${bundled.length} bundled families, ${cached.length} in the font cache ${list.cache.directory} (${(list.cache.bytes / 1e6).toFixed(1)} MB)` +
      (missingGenerics.length > 0 ? `; no face for ${missingGenerics.map(([generic]) => generic).join(', ')}` : ''),
    fix: missingGenerics.length > 0 ? "reinstall engine: its fonts/ folder is incomplete (in a checkout, `node scripts/vendor-fonts.mjs` writes it)" : undefined,
    info: {bundled: bundled.map((family) => family.family), cached: cached.map((family) => family.family), generics: list.generics, cache: list.cache},
  }
}
