// The composition-attribute reference, from COMPOSITION_ATTRIBUTES
// (src/lib/compose/composition-attributes.ts). The source is searched for every `data-*` name it
// uses; one missing from the list fails the generator, so a new attribute cannot ship undocumented.
import {globSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {pathToFileURL} from 'node:url'
import {code, generatedHeader, table} from './markdown.mjs'

/** Source that reads compositions. The preview player's own page and this list itself are not compositions. */
const SOURCES = ['src/lib/**/*.ts']
const NOT_COMPOSITION = [/^src\/lib\/preview\//, /composition-attributes\.ts$/]

function attributesInSource(root) {
  const names = new Set()
  for (const file of SOURCES.flatMap((pattern) => globSync(pattern, {cwd: root}))) {
    if (NOT_COMPOSITION.some((pattern) => pattern.test(file))) continue
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of text.matchAll(/(?<![\w-])data-[a-z][a-z0-9]*(?:-[a-z0-9]+)*/g)) names.add(match[0])
  }
  return names
}

export async function attributesReference(root) {
  const {COMPOSITION_ATTRIBUTES} = await import(pathToFileURL(join(root, 'dist/src/lib/compose/composition-attributes.js')).href)
  const listed = new Set(COMPOSITION_ATTRIBUTES.map((attribute) => attribute.name))
  const missing = [...attributesInSource(root)].filter((name) => !listed.has(name)).sort()
  if (missing.length > 0) throw new Error(`src/lib/compose/composition-attributes.ts: describe ${missing.join(', ')} (the source reads them)`)
  const rows = (writtenBy) =>
    COMPOSITION_ATTRIBUTES.filter((attribute) => attribute.writtenBy === writtenBy).map((attribute) => [
      `<a id="${attribute.name}"></a>${code(attribute.name)}`,
      attribute.on,
      attribute.meaning,
      attribute.default,
    ])
  const text = [
    generatedHeader('Composition attributes', 'COMPOSITION_ATTRIBUTES in src/lib/compose/composition-attributes.ts'),
    'Every `data-*` attribute engine reads in a composition. The root\'s attributes are read once from the source HTML when the composition is compiled: ' +
      'a script cannot change them. Clip timing (`data-start`, `data-duration`) is read from the live page after its scripts ran. ' +
      '`engine lint` reports a value engine would refuse or ignore. How to use them: [writing compositions](../guides/compositions.md).',
    '',
    '## Written by authors',
    '',
    table(['Attribute', 'On', 'Meaning', 'When absent'], rows('author')),
    '',
    '## Written by engine',
    '',
    'engine sets these while compiling or rendering. Do not write them; select or style by them where the meaning says so.',
    '',
    table(['Attribute', 'On', 'Meaning'], rows('engine').map((row) => row.slice(0, 3))),
    '',
  ]
  return new Map([['composition-attributes.md', text.join('\n')]])
}
