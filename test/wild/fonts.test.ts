import {readdir} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {compileComposition} from '../../src/lib/compose/compile-composition.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {frames, page, render, SLOW, useProject} from './support.js'

/** Lines of text, each in its own family list; big enough that a face change moves many pixels. */
function lines(families: readonly string[], style = ''): string {
  const rows = families.map((family, index) => `<p style='top:${4 + index * 22}px; font-family: ${family}'>Hamburg 0123 Wqfy</p>`).join('\n')
  return `<style>p { position: absolute; left: 6px; margin: 0; font-size: 18px; color: #000 } ${style}</style>${rows}`
}

/** The system stacks templates write, and the bundled family each is drawn with (the substitution table). */
const STACKS: readonly [stack: string, family: string, named: string][] = [
  ['-apple-system, BlinkMacSystemFont, "Segoe UI", sans-serif', 'Inter', '-apple-system'],
  ['system-ui, sans-serif', 'Inter', 'system-ui'],
  ['ui-monospace, "SF Mono", Menlo, monospace', '"JetBrains Mono"', 'ui-monospace'],
  ['Menlo, Monaco, Consolas, "Courier New", monospace', '"JetBrains Mono"', 'Menlo'],
  ['Helvetica, Arial, sans-serif', 'Arimo', 'Helvetica'],
  ['Georgia, "Times New Roman", serif', 'Gelasio', 'Georgia'],
  ['"Times New Roman", Times, serif', 'Tinos', 'Times New Roman'],
  ['"Courier New", monospace', 'Cousine', 'Courier New'],
]

describe('fonts named the ways templates name them', SLOW, () => {
  const project = useProject()
  const renderFrames = async (name: string, html: string, options: {strictFonts?: boolean} = {}) => {
    const composition = await project.write(`${name}/index.html`, html)
    const output = join(project.dir(), `${name}-frames`)
    const result = await render(composition, {format: 'png-sequence', output, ...options})
    return {frames: await frames(output), warnings: result.warnings, events: result.events}
  }
  const expectSame = (actual: Map<string, Buffer>, expected: Map<string, Buffer>, what: string) => {
    expect([...actual.keys()], what).toEqual([...expected.keys()])
    for (const [name, bytes] of expected) expect(actual.get(name)!.equals(bytes), `${what}: ${name}`).toBe(true)
  }

  it('a family named through var(), in a linked stylesheet, renders identical to the same family named directly', async () => {
    const direct = await renderFrames('direct', page(lines(['Oswald', '"Space Mono"'])))
    await project.write('variables/theme.css', ':root { --brand: "Oswald", sans-serif; --display: var(--brand); --code: "Space Mono", monospace }')
    const throughVariables = await renderFrames('variables', page(lines(['var(--display)', 'var(--code, monospace)']), {head: '<link rel="stylesheet" href="theme.css">'}))
    expectSame(throughVariables.frames, direct.frames, 'var() through a linked stylesheet')
    expect(throughVariables.warnings).toEqual([])
    const roboto = await renderFrames('roboto', page(lines(['Roboto', 'Roboto'])))
    expect(roboto.frames.get('frame_000000.png')!.equals(direct.frames.get('frame_000000.png')!), 'other families draw other pixels').toBe(false)
  })

  it('draws each system stack with its stand-in from the table, told once as a font-substituted note', async () => {
    const stacks = await renderFrames('stacks', page(lines(STACKS.map(([stack]) => stack))))
    const standIns = await renderFrames('stand-ins', page(lines(STACKS.map(([, family]) => family))))
    expectSame(stacks.frames, standIns.frames, 'system stacks against their stand-ins')
    expect(standIns.warnings).toEqual([])
    const notes = stacks.events.flatMap((event) => (event.type === 'warning' ? [event] : []))
    expect(notes.every((note) => note.code === 'font-substituted' && note.level === 'info'), JSON.stringify(notes)).toBe(true)
    expect(notes.map((note) => /^"([^"]+)" is drawn with (.+?) \(/.exec(note.message)!.slice(1)).sort()).toEqual(
      STACKS.map(([, family, named]) => [named, family.replace(/"/g, '')]).sort(),
    )
  })

  it('--strict-fonts refuses a substituted family before any frame', async () => {
    const error = await renderFrames('strict', page(lines([STACKS[0][0]])), {strictFonts: true}).catch((caught: unknown) => caught)
    expect(isEngineError(error, 'FONT_MISSING')).toBe(true)
    expect((error as Error).message).toMatch(/--strict-fonts: 1 substituted family, nothing was rendered:\n {2}- "-apple-system" is drawn with Inter/)
    expect(await readdir(project.dir())).not.toContain('strict-frames')
  })

  it('checks families a script sets while the page is seeked: a stand-in is told, a family no one serves is a fallback', async () => {
    const body = `${lines(['Inter', 'Inter'])}
<script>setTimeout(() => { document.querySelectorAll('p')[0].style.fontFamily = 'Georgia'; document.querySelectorAll('p')[1].style.fontFamily = '"Brand Grotesk"' }, 500)</script>`
    const {warnings} = await renderFrames('seek-time', page(body))
    expect(warnings.map((warning) => warning.code).sort()).toEqual(['font-fallback', 'font-substituted'])
    expect(warnings.find((warning) => warning.code === 'font-substituted')!.message).toMatch(/^"Georgia" is drawn with Gelasio/)
    expect(warnings.find((warning) => warning.code === 'font-fallback')!.message).toMatch(/font "Brand Grotesk" 400 is not available to the page, so <p> "Hamburg 0123 Wqfy" falls back/)
    const strict = await renderFrames('seek-time-strict', page(body), {strictFonts: true}).catch((caught: unknown) => caught)
    expect(isEngineError(strict, 'FONT_MISSING')).toBe(true)
  })

  it('text a script sets to a generic family when the page loads is a fallback warning: the host would pick its face', async () => {
    const body = `${lines(['Inter', 'Inter'])}
<script>document.querySelectorAll('p')[1].style.fontFamily = 'serif'</script>`
    const {warnings} = await renderFrames('generic-at-load', page(body))
    expect(warnings).toEqual([
      expect.objectContaining({code: 'font-fallback', message: expect.stringMatching(/^<p> "Hamburg 0123 Wqfy" is drawn with the generic family serif, set by a script/)}),
    ])
  })

  it('a fix never names a family that cannot be installed', async () => {
    const file = await project.write(
      'proprietary/index.html',
      page('<p style="font-family: \'Apple Color Emoji\'">hi</p><p style="font-family: Futura, sans-serif">f</p><p style="font-family: -webkit-pictograph">w</p>'),
    )
    const {fonts} = await compileComposition(file, {env: {ENGINE_CACHE_DIR: join(project.dir(), 'cache')}})
    const messages = fonts.findings.map((finding) => finding.message)
    expect(messages).toHaveLength(3)
    expect(messages[0]).toMatch(/"Apple Color Emoji" is a proprietary font engine cannot install; name an open family such as "Noto Color Emoji" instead/)
    expect(messages[1]).toMatch(/"Futura" is a proprietary font .* such as "Jost"/)
    expect(messages[2]).toMatch(/"-webkit-pictograph" names a browser's or system's own face, which no one can install/)
    for (const message of messages) expect(message).not.toMatch(/engine fonts add "(Apple Color Emoji|Futura|-webkit-pictograph)"/)
  })
})
