/**
 * The bundled face each CSS generic family is drawn with, in every mode and profile, so that the
 * host's fonts never decide the output. The default font of a page (no `font-family` at all) is
 * the browser's standard font, a serif: it maps like `serif`.
 */
export const GENERIC_FAMILY_FACES: Readonly<Record<string, string>> = {
  'sans-serif': 'Noto Sans',
  'system-ui': 'Noto Sans',
  'ui-sans-serif': 'Noto Sans',
  'ui-rounded': 'Noto Sans',
  serif: 'Noto Serif',
  'ui-serif': 'Noto Serif',
  monospace: 'Noto Sans Mono',
  'ui-monospace': 'Noto Sans Mono',
  cursive: 'Dancing Script',
  fantasy: 'Noto Sans',
  math: 'Noto Serif',
  fangsong: 'Noto Serif',
}

/** The face of a page whose text names no family. */
export const DEFAULT_FAMILY_FACE = GENERIC_FAMILY_FACES.serif

export function isGenericFamily(name: string): boolean {
  return Object.hasOwn(GENERIC_FAMILY_FACES, name.toLowerCase())
}
