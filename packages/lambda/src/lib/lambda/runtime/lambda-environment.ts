import {cp, mkdir, readdir, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {isExecutableFile} from 'html-video-engine/internal/lib/browser/resolve-browser.js'
import {FFMPEG_PATH_ENV, FFPROBE_PATH_ENV} from 'html-video-engine/internal/lib/encode/resolve-ffmpeg.js'
import {fontsConf} from 'html-video-engine/internal/lib/profile/fonts-conf.js'
import {DETERMINISTIC_PROFILE} from 'html-video-engine/internal/lib/profile/render-profile.js'
import {BUNDLE_LAYOUT} from '../bundle/bundle-layout.js'

/**
 * Makes a cold start of the bundled handler ready to render. Lambda's file system is read-only
 * except /tmp, so HOME, the XDG directories, engine's cache and fontconfig's cache go there; the
 * bundle's own ffmpeg and ffprobe are used unless the environment names others; the browser sees
 * the bundle's fonts (the render profile's, copied to /tmp) and no others. Outside a task root it does nothing.
 */
export async function prepareLambdaEnvironment(env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const taskRoot = env.LAMBDA_TASK_ROOT
  if (!taskRoot) return
  const tmp = tmpdir()
  const dirs = {HOME: tmp, XDG_CONFIG_HOME: join(tmp, '.config'), XDG_CACHE_HOME: join(tmp, '.cache'), XDG_DATA_HOME: join(tmp, '.local', 'share')}
  for (const [name, path] of Object.entries(dirs)) env[name] = path
  env.ENGINE_CACHE_DIR ||= join(tmp, 'engine-cache')
  await Promise.all([...Object.values(dirs), env.ENGINE_CACHE_DIR].map((path) => mkdir(path, {recursive: true})))

  for (const [name, relative] of [[FFMPEG_PATH_ENV, BUNDLE_LAYOUT.ffmpeg], [FFPROBE_PATH_ENV, BUNDLE_LAYOUT.ffprobe]] as const) {
    const path = join(taskRoot, relative)
    if (!env[name] && (await isExecutableFile(path))) env[name] = path
  }
  const bundledFonts = join(taskRoot, BUNDLE_LAYOUT.fonts)
  const fontFiles = await readdir(bundledFonts).catch(() => [])
  if (fontFiles.length > 0) {
    // Fontconfig reads a copy in /tmp, not the task root. Measured through `lambda local --bundle`
    // with the 27-face Google Fonts test page: from the task root every render's web fonts failed
    // to load (12 of 12), from the copy none on a quiet machine (0 of 19). Faces that still fail
    // under load are made again in the page (PageFonts.remakeFailed).
    const fontsDir = join(tmp, 'engine-fonts')
    await cp(bundledFonts, fontsDir, {recursive: true})
    const conf = join(tmp, 'engine-fonts.conf')
    const files = fontFiles.sort().map((name) => ({path: join(fontsDir, name), sha256: ''}))
    await writeFile(conf, fontsConf({...DETERMINISTIC_PROFILE.fonts, files}, join(tmp, 'fontconfig-cache')))
    env.FONTCONFIG_FILE = conf
  }
}
