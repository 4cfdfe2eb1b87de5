// Finds broken links in the repository's Markdown: a relative link to a file that does not exist,
// or to a heading (#anchor) the target page does not have. test/docs/docs-pages.test.ts runs it;
// `node scripts/docs/check-links.mjs` prints what it finds while editing the docs.
import {existsSync, globSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import {fileURLToPath} from 'node:url'

export const MARKDOWN = ['README.md', 'CHANGELOG.md', 'CONTRIBUTING.md', 'docs/**/*.md', 'bench/README.md', 'examples/**/README.md', 'packages/*/README.md']

/** Markdown without its fenced code blocks, where headings and links are not what they look like. */
function withoutFences(text) {
  return text.replace(/^([ \t]*)(```|~~~)[\s\S]*?^\1\2[ \t]*$/gm, '')
}

/** ... and without inline code, where links are not links either. */
function prose(text) {
  return withoutFences(text).replace(/`[^`\n]*`/g, '')
}

/** The anchors GitHub makes for a page: one per heading (duplicates numbered), plus explicit ids. */
export function anchorsOf(text) {
  const anchors = new Set()
  const seen = new Map()
  for (const match of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = match[1]
      .replace(/<[^>]+>/g, '')
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  for (const match of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(match[1])
  return anchors
}

export function brokenLinks(root) {
  const files = [...new Set(MARKDOWN.flatMap((pattern) => globSync(pattern, {cwd: root, exclude: ['**/node_modules/**']})))].sort()
  const broken = []
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8')
    for (const match of prose(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
      const [path, anchor] = target.split('#')
      const resolved = path === '' ? join(root, file) : resolve(dirname(join(root, file)), decodeURIComponent(path))
      if (!existsSync(resolved)) {
        broken.push({file, target, problem: 'no such file'})
        continue
      }
      if (anchor === undefined || statSync(resolved).isDirectory() || !resolved.endsWith('.md')) continue
      if (!anchorsOf(readFileSync(resolved, 'utf8')).has(anchor)) broken.push({file, target, problem: `no heading #${anchor} in ${relative(root, resolved)}`})
    }
  }
  return broken
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '../..')
  const broken = brokenLinks(root)
  for (const link of broken) console.log(`${link.file}: ${link.target} (${link.problem})`)
  console.log(`${broken.length} broken link(s)`)
  process.exitCode = broken.length > 0 ? 1 : 0
}
