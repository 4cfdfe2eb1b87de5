// The TypeScript API reference: what each package entry point exports, read with the TypeScript
// compiler (kind, signature, the first paragraph of its doc comment, and the fields of exported
// interfaces). A summary in one page, lighter than TypeDoc and built from the same declarations.
import {readFileSync} from 'node:fs'
import {join, relative} from 'node:path'
import ts from 'typescript'
import {code, generatedHeader} from './markdown.mjs'

const FORMAT = ts.TypeFormatFlags.UseAliasDefinedOutsideCurrentScope | ts.TypeFormatFlags.WriteArrayAsGenericType

/** The packages documented: the core and the serverless companion (a workspace package). */
const PACKAGES = ['.', 'packages/lambda']

/**
 * Entry points of each package.json "exports", mapped back to their TypeScript source. The core's
 * `internal/*` export, which only the companion uses, is not an API.
 */
function entryPoints(root) {
  return PACKAGES.flatMap((dir) => {
    const {name, exports: exportsField} = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'))
    return Object.entries(exportsField)
      .filter(([subpath]) => !subpath.includes('*'))
      .map(([subpath, target]) => {
        const types = typeof target === 'string' ? target : target.types
        const source = types.replace(/^\.\/dist\//, '').replace(/\.d\.ts$/, '.ts')
        return {name: subpath === '.' ? name : `${name}/${subpath.slice(2)}`, file: join(root, dir, source)}
      })
  })
}

export function createProgram(root, files) {
  const configPath = join(root, 'tsconfig.json')
  const config = ts.parseJsonConfigFileContent(ts.readConfigFile(configPath, ts.sys.readFile).config, ts.sys, root)
  return ts.createProgram(files, {...config.options, noEmit: true, skipLibCheck: true})
}

function summary(symbol, checker) {
  const text = ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim()
  return text.split(/\n\s*\n/)[0].replace(/\s*\n\s*/g, ' ')
}

function kindOf(symbol) {
  const flags = symbol.flags
  if (flags & ts.SymbolFlags.Class) return 'class'
  if (flags & ts.SymbolFlags.Function) return 'function'
  if (flags & ts.SymbolFlags.Interface) return 'interface'
  if (flags & ts.SymbolFlags.TypeAlias) return 'type'
  if (flags & ts.SymbolFlags.Enum) return 'enum'
  return 'const'
}

function describeExport(root, name, symbol, checker) {
  const kind = kindOf(symbol)
  const declaration = symbol.declarations?.[0]
  const lines = [`### ${code(name)} (${kind})`, '']
  if (declaration) {
    const file = relative(root, declaration.getSourceFile().fileName)
    lines.push(`Declared in [${file}](../../${file}).`, '')
  }
  const doc = summary(symbol, checker)
  if (kind === 'function') {
    const type = checker.getTypeOfSymbolAtLocation(symbol, declaration)
    lines.push('```ts', ...type.getCallSignatures().map((signature) => `${name}${checker.signatureToString(signature, undefined, FORMAT)}`), '```', '')
  } else if (kind === 'const') {
    lines.push('```ts', `${name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(symbol, declaration), undefined, FORMAT)}`, '```', '')
  } else if (kind === 'class') {
    const members = [...(symbol.members?.values() ?? [])].filter((member) => member.name !== '__constructor' && !member.name.startsWith('#'))
    const publicMembers = members.filter((member) => !(ts.getCombinedModifierFlags(member.declarations?.[0] ?? declaration) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)))
    lines.push('```ts', `class ${name} {`, ...publicMembers.map((member) => `  ${member.name}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(member, declaration), undefined, FORMAT)}`), '}', '```', '')
  } else if (kind === 'interface') {
    const type = checker.getDeclaredTypeOfSymbol(symbol)
    const props = checker.getPropertiesOfType(type)
    lines.push('```ts', `interface ${name} {`)
    for (const prop of props) {
      const optional = prop.flags & ts.SymbolFlags.Optional ? '?' : ''
      const propDoc = summary(prop, checker)
      if (propDoc) lines.push(`  /** ${propDoc.replace(/\*\//g, '* /')} */`)
      lines.push(`  ${prop.name}${optional}: ${checker.typeToString(checker.getTypeOfSymbolAtLocation(prop, declaration), undefined, FORMAT)}`)
    }
    lines.push('}', '```', '')
  } else if (kind === 'type' && declaration && ts.isTypeAliasDeclaration(declaration)) {
    const text = declaration.type.getText().replace(/\s*\n\s*/g, ' ')
    lines.push('```ts', `type ${name} = ${text.length > 400 ? '… (see its declaration)' : text}`, '```', '')
  }
  if (doc) lines.push(doc, '')
  return lines.join('\n')
}

export function apiReference(root) {
  const entries = entryPoints(root)
  const program = createProgram(root, entries.map((entry) => entry.file))
  const checker = program.getTypeChecker()
  const out = [
    generatedHeader('TypeScript API', 'the package entry points (package.json "exports") read with the TypeScript compiler'),
    'What each entry point of the package exports. Signatures are as TypeScript prints them; the text under each is the first paragraph of its doc comment.',
    '',
    ...entries.map((entry) => `- [${code(entry.name)}](#${entry.name.replace(/[^a-z0-9-]/g, '')})`),
    '',
  ]
  for (const entry of entries) {
    const sourceFile = program.getSourceFile(entry.file)
    if (!sourceFile) throw new Error(`${entry.file}: not found (package.json exports ${entry.name})`)
    const moduleSymbol = checker.getSymbolAtLocation(sourceFile)
    const exported = checker.getExportsOfModule(moduleSymbol).sort((a, b) => a.name.localeCompare(b.name))
    out.push(`## ${code(entry.name)}`, '', `\`import {…} from '${entry.name}'\` — ${exported.length} exports.`, '')
    for (const symbol of exported) {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
      out.push(describeExport(root, symbol.name, target, checker))
    }
  }
  // TypeScript prints inline import types with absolute paths: make them repository-relative so the
  // page is the same in every checkout (CI clones elsewhere).
  const page = out.join('\n').split(`${root}/`).join('')
  return new Map([['api.md', page.trimEnd() + '\n']])
}

/** The text of one exported declaration (with its doc comment) from a source file. */
export function declarationSource(root, file, name) {
  const path = join(root, file)
  const sourceFile = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true)
  const found = sourceFile.statements.find((statement) => statement.name?.text === name)
  if (!found) throw new Error(`${file}: no declaration named ${name}`)
  return sourceFile.text.slice(found.getFullStart(), found.getEnd()).trim()
}
