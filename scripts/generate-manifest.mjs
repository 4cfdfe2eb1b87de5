// Writes oclif.manifest.json from the compiled commands, the same data `oclif manifest` produces,
// so that `engine --help` does not have to import every command at start-up. Run for the core
// (no argument) and for a workspace package (its directory as the argument).
import {writeFileSync} from 'node:fs'
import {dirname, join, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Plugin} from '@oclif/core'

const repo = join(dirname(fileURLToPath(import.meta.url)), '..')
// A workspace package's commands import the core by its package name, as the CLI resolves it.
const {registerHostPackage} = await import(join(repo, 'dist/src/lib/sandbox/host-package.js'))
registerHostPackage(repo)
const root = process.argv[2] ? resolve(process.argv[2]) : repo
const plugin = new Plugin({root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true})
await plugin.load()
// Sorted, so that the committed file only changes when a command does.
const commands = Object.fromEntries(Object.entries(plugin.manifest.commands).sort(([a], [b]) => a.localeCompare(b)))
writeFileSync(join(root, 'oclif.manifest.json'), JSON.stringify({...plugin.manifest, commands}, null, 2) + '\n')
console.log(`${plugin.name} oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`)
