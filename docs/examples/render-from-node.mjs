// Renders from JavaScript with the package API, as the CLI does: lint, the config file's defaults,
// a video and a still. `node docs/examples/render-from-node.mjs [output folder]`.
import {lintComposition, loadConfig, renderComposition, renderStill, resolveRenderOptions} from 'html-video-engine'

const composition = 'examples/hello/index.html'
const folder = process.argv[2] ?? 'renders/sdk'
const variables = {title: 'From Node'}

const errors = (await lintComposition(composition)).filter((finding) => finding.severity === 'error')
if (errors.length > 0) throw new Error(errors.map((finding) => finding.message).join('\n'))

// Layers, lowest first: defaults, the config file found from the working directory, this call.
const {options: fromConfig} = await loadConfig()
const video = await renderComposition({
  composition,
  options: resolveRenderOptions(fromConfig, {output: `${folder}/hello.mp4`, scale: 0.5, frames: '0-29'}),
  variables,
  onEvent: (event) => {
    if (event.type === 'warning') console.warn(`warning [${event.code}]: ${event.message}`)
  },
})
console.log(`${video.output}: ${video.totalFrames} frames, ${video.bytes} bytes in ${video.timings.totalMs} ms`)

const still = await renderStill({
  composition,
  options: resolveRenderOptions(fromConfig, {output: `${folder}/hello.png`, scale: 0.5}),
  still: {time: 1},
  variables,
})
console.log(`${still.output}: frame ${still.frame}, ${still.width}x${still.height}`)
