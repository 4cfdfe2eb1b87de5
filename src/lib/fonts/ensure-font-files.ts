import {access} from 'node:fs/promises'
import {join} from 'node:path'
import {EngineError} from '../errors/engine-error.js'
import {cacheFontFile} from './font-assets.js'
import {fontCacheDirectory} from './font-cache-dir.js'
import {loadFontCatalog, type FontCatalog} from './font-catalog.js'
import type {RuntimeFonts} from './font-plan.js'

/**
 * Makes the font files a plan's page is served present in this machine's font cache, from this
 * machine's Fontsource packages or those handed over with the render (a Lambda chunk, a
 * container): a plan compiled elsewhere names
 * each face's package file and content address. A file that is missing or has other contents is
 * an error naming the family and the file, before any frame.
 */
export async function ensureFontFiles(fonts: RuntimeFonts | undefined, env: NodeJS.ProcessEnv = process.env, fontPackages: readonly string[] = []): Promise<void> {
  if (!fonts) return
  const directory = fontCacheDirectory(env)
  let catalog: Promise<FontCatalog> | undefined
  await Promise.all(
    fonts.faces.map(async (face) => {
      if (await exists(join(directory, face.name))) return
      catalog ??= loadFontCatalog(env, fontPackages)
      const match = /^(@(?:fontsource|fontsource-variable|google-fonts)\/[a-z0-9-]+)\/(files\/[a-z0-9.-]+)$/.exec(face.file)
      const entry = match && [...(await catalog).families.values()].find((candidate) => candidate.packageName === match[1])
      if (!match || !entry) {
        throw new EngineError('FONT_FAILED', `font "${face.family}" needs ${face.file}, which is not installed here; install ${match?.[1] ?? 'its package'} beside engine or run \`engine fonts add "${face.family}"${face.weightRange ? ' --variable' : ''}\``, {
          family: face.family,
          file: face.file,
        })
      }
      const name = await cacheFontFile(join(entry.directory, match[2]), env)
      if (name !== face.name) {
        throw new EngineError('FONT_FAILED', `font "${face.family}": ${face.file} here (${entry.packageName}@${entry.version}) differs from the file the render was planned with; install the same version everywhere`, {
          family: face.family,
          file: face.file,
        })
      }
    }),
  )
}

function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  )
}
