// `npm run docs:reference`: writes docs/reference/ from the code (see scripts/docs/reference.mjs)
// and removes pages nothing generates any more. Run `npm run build` first.
import {mkdirSync, readdirSync, rmSync, writeFileSync} from 'node:fs'
import {dirname, join, relative} from 'node:path'
import {fileURLToPath} from 'node:url'
import {generateReference, REFERENCE_DIR} from './docs/reference.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const dir = join(root, REFERENCE_DIR)
const files = await generateReference(root)
mkdirSync(dir, {recursive: true})
for (const entry of readdirSync(dir, {recursive: true, withFileTypes: true})) {
  const path = relative(dir, join(entry.parentPath, entry.name))
  if (entry.isFile() && !files.has(path)) rmSync(join(dir, path))
}
for (const [path, text] of files) {
  mkdirSync(dirname(join(dir, path)), {recursive: true})
  writeFileSync(join(dir, path), text)
}
console.log(`${REFERENCE_DIR}: ${files.size} pages`)
