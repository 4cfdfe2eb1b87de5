import {readFile, rm, writeFile} from 'node:fs/promises'
import type {IncomingMessage, ServerResponse} from 'node:http'
import {join} from 'node:path'
import type {CompileOptions} from '../compose/compile-composition.js'
import {contentType} from '../sandbox/content-type.js'
import {compileOffThread} from './compile-off-thread.js'
import {resolveRenderOptions} from '../render/resolve-options.js'
import {renderStill} from '../still/render-still.js'
import {stillExtension} from '../still/still-settings.js'
import {readJsonBody} from './read-json-body.js'
import type {RenderService} from './render-service.js'
import {resolveCompositionPath} from './resolve-composition-path.js'
import {parseStillBody} from './still-request.js'
import {makeTempDirectory} from '../files/temp-directory.js'

/**
 * `POST /still`: JSON in, the image out (`image/png`, `image/jpeg` or `image/webp`, with the frame
 * and its time in `X-Engine-Frame` / `X-Engine-Time`). It waits for a render slot like any render,
 * and a client that disconnects cancels it.
 */
export async function answerStill(req: IncomingMessage, res: ServerResponse, options: {service: RenderService; root: string; maxBodyBytes: number}): Promise<void> {
  const body = parseStillBody(await readJsonBody(req, options.maxBodyBytes))
  const composition = body.composition === undefined ? undefined : await resolveCompositionPath(options.root, body.composition)
  if (req.socket.destroyed) return
  const format = body.still.format ?? 'png'
  const task = options.service.inSlot(async (signal, pool) => {
    const dir = await makeTempDirectory('serve-still')
    try {
      let path = composition
      // An inline composition is a project of its own: it reaches none of the root's files.
      let projectDir = options.root
      if (path === undefined) {
        path = join(dir, 'composition.html')
        projectDir = dir
        await writeFile(path, body.html ?? '')
      }
      const output = join(dir, 'still' + stillExtension(format))
      const network = options.service.networkFor(body.options.network)
      const resolved = resolveRenderOptions({...body.options, output, network, allowPrivateNetwork: false})
      const compile = (file: string, compileOptions: CompileOptions) => compileOffThread(file, compileOptions, signal)
      const result = await renderStill({composition: path, projectDir, options: resolved, still: body.still, variables: body.variables, signal, pool, compile, limits: options.service.limits})
      return {result, image: await readFile(result.output)}
    } finally {
      await rm(dir, {recursive: true, force: true})
    }
  })
  res.once('close', () => {
    if (!res.writableEnded) task.cancel('the client disconnected')
  })
  const {result, image} = await task.result
  res.writeHead(200, {
    'Content-Type': contentType(result.output),
    'Content-Length': image.length,
    'X-Engine-Frame': String(result.frame),
    'X-Engine-Time': String(result.timeSeconds),
    'X-Engine-Cache': result.cached ? 'hit' : 'miss',
  })
  res.end(image)
}
