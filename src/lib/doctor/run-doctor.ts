import {checkBrowser} from './check-browser.js'
import {checkContainerRuntime} from './check-container.js'
import {checkFfmpeg} from './check-ffmpeg.js'
import {checkFonts} from './check-fonts.js'
import {checkPlugins, type PluginsToCheck} from './check-plugins.js'
import {checkJavascriptRuntime} from './check-runtime.js'
import {doctorReport, type DoctorReport} from './doctor-check.js'

/** Every dependency a render can touch, checked concurrently, reported in a fixed order. */
export async function runDoctor(options: {browserPath?: string; plugins?: PluginsToCheck} = {}): Promise<DoctorReport> {
  const [ffmpeg, browser, container, fonts] = await Promise.all([checkFfmpeg(), checkBrowser(options), checkContainerRuntime(), checkFonts()])
  return doctorReport([checkJavascriptRuntime(), ...ffmpeg, browser, container, fonts, ...(options.plugins ? [checkPlugins(options.plugins)] : [])])
}
