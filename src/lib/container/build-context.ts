import {cp, mkdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {z} from 'zod'
import {packageRoot} from '../sandbox/package-root.js'
import {EngineError} from '../errors/engine-error.js'

/** Where the Dockerfile and its companions live in the package. */
export const DOCKER_DIR = 'docker'
/** Where the build context keeps the engine package the image installs. */
export const CONTEXT_PACKAGE_DIR = 'engine'

const manifestSchema = z.object({files: z.array(z.string())})

/**
 * Fills `contextDir` with what the image is built from: the package's docker/ directory at the top,
 * and this engine package (what npm would publish, plus the lockfile of a checkout) under engine/,
 * so the image runs exactly this engine's code.
 */
export async function writeBuildContext(contextDir: string, root: string = packageRoot()): Promise<void> {
  const manifest = manifestSchema.parse(JSON.parse(await readFile(join(root, 'package.json'), 'utf8')))
  const dockerDir = join(root, DOCKER_DIR)
  try {
    await mkdir(contextDir, {recursive: true})
    await cp(dockerDir, contextDir, {recursive: true})
  } catch (error) {
    throw new EngineError('CONTAINER_FAILED', `cannot copy the image definition ${dockerDir} into ${contextDir}: ${(error as Error).message}`, {
      dockerDir,
      contextDir,
    })
  }
  const target = join(contextDir, CONTEXT_PACKAGE_DIR)
  for (const entry of REQUIRED_ENTRIES) {
    await cp(join(root, entry), join(target, entry), {recursive: true}).catch((error: Error) => {
      throw new EngineError('CONTAINER_FAILED', `cannot put ${join(root, entry)} into the image: ${error.message}${entry === 'dist' ? ' (run `npm run build` first)' : ''}`, {
        entry,
      })
    })
  }
  const optional = ['package-lock.json', ...manifest.files].filter((entry) => !REQUIRED_ENTRIES.includes(entry))
  for (const entry of optional) {
    await cp(join(root, entry), join(target, entry), {recursive: true}).catch((error: NodeJS.ErrnoException) => {
      // A published package has no lockfile, and not every listed directory exists in every build.
      if (error.code !== 'ENOENT') throw error
    })
  }
}

/** Without these the image would have no engine to run. */
const REQUIRED_ENTRIES = ['package.json', 'bin', 'dist']
