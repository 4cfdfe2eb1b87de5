#!/usr/bin/env node
// Checked before anything is imported: the dependencies fail in obscure ways on older Node.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 22 || (major === 22 && minor < 12)) {
  console.error(`engine needs Node.js >= 22.12; this is ${process.version}. Install Node 22 (for example \`npm install -g node@22\`) and try again.`)
  process.exit(1)
}
const {settings} = await import('@oclif/core')
// Plugins (linked ones included) run their compiled JavaScript; oclif must not look for TypeScript sources.
settings.enableAutoTranspile = false
const {startCli} = await import('../dist/src/cli/start-cli.js')
await startCli(import.meta.url)
