import {mkdirSync, readdirSync, renameSync, statSync, writeFileSync, existsSync} from 'node:fs'
import {join} from 'node:path'
import {transform} from 'esbuild'
import {readFile} from 'node:fs/promises'

const root = join(import.meta.dirname, '../../..')
const sources = join(root, 'src/lib/preview/client')
const output = join(root, 'dist/src/lib/preview/client')

/**
 * The player page loads its scripts from dist/ (`npm run build` compiles them with tsc). A test
 * file run on its own may find them missing or older than their sources: compile those again,
 * one file at a time as tsc does, and swap each in atomically.
 */
export async function ensurePreviewClient(): Promise<void> {
  mkdirSync(output, {recursive: true})
  for (const name of readdirSync(sources).filter((file) => file.endsWith('.ts'))) {
    const source = join(sources, name)
    const target = join(output, name.replace(/\.ts$/, '.js'))
    if (existsSync(target) && statSync(target).mtimeMs >= statSync(source).mtimeMs) continue
    const result = await transform(await readFile(source, 'utf8'), {loader: 'ts', format: 'esm', target: 'es2023'})
    const temporary = `${target}.${process.pid}.tmp`
    writeFileSync(temporary, result.code)
    renameSync(temporary, target)
  }
}
