import {execFile} from 'node:child_process'
import {createHash} from 'node:crypto'
import {mkdtemp, readFile, readdir} from 'node:fs/promises'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {join} from 'node:path'
import {promisify} from 'node:util'

const run = promisify(execFile)

export interface NpmRegistry {
  /** `http://127.0.0.1:<port>/`, for `npm_config_registry`. */
  url: string
  /** Requests answered so far. */
  requests(): number
  close(): void
}

/**
 * An npm registry on loopback holding the given package directories (packed with the real npm) and
 * answering 404 for everything else, so that `engine fonts add` runs the real npm against it.
 */
export async function startNpmRegistry(packageDirectories: readonly string[], scratch: string): Promise<NpmRegistry> {
  const packages = new Map<string, {manifest: Record<string, unknown> & {version: string}; tarball: Buffer; file: string}>()
  for (const directory of packageDirectories) {
    const destination = await mkdtemp(join(scratch, 'pack-'))
    await run('npm', ['pack', directory, '--pack-destination', destination, '--loglevel=error'], {cwd: destination})
    const file = (await readdir(destination)).find((name) => name.endsWith('.tgz'))!
    const manifest = JSON.parse(await readFile(join(directory, 'package.json'), 'utf8')) as Record<string, unknown> & {name: string; version: string}
    packages.set(manifest.name, {manifest, tarball: await readFile(join(destination, file)), file})
  }
  let requests = 0
  const server: Server = createServer((request, response) => {
    requests++
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const path = decodeURIComponent(request.url ?? '').slice(1)
    const metadata = packages.get(path)
    const tarball = [...packages.values()].find((entry) => path === entry.file)
    if (metadata) {
      const {manifest, tarball: bytes, file} = metadata
      response.setHeader('content-type', 'application/json')
      response.end(
        JSON.stringify({
          name: path,
          'dist-tags': {latest: manifest.version},
          versions: {
            [manifest.version]: {
              ...manifest,
              dist: {
                tarball: `${base}/${file}`,
                shasum: createHash('sha1').update(bytes).digest('hex'),
                integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
              },
            },
          },
        }),
      )
    } else if (tarball) {
      response.end(tarball.tarball)
    } else {
      response.statusCode = 404
      response.setHeader('content-type', 'application/json')
      response.end('{"error":"Not found"}')
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, requests: () => requests, close: () => server.close()}
}
