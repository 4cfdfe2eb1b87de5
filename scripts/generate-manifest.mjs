// Writes oclif.manifest.json from the compiled commands, the same data `oclif manifest` produces,
// so that `engine --help` does not have to import every command at start-up.
import {writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Plugin} from '@oclif/core'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const plugin = new Plugin({root, type: 'core', ignoreManifest: true, errorOnManifestCreate: true, isRoot: true})
await plugin.load()
// Sorted, so that the committed file only changes when a command does.
const commands = Object.fromEntries(Object.entries(plugin.manifest.commands).sort(([a], [b]) => a.localeCompare(b)))
writeFileSync(join(root, 'oclif.manifest.json'), JSON.stringify({...plugin.manifest, commands}, null, 2) + '\n')
console.log(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`)
