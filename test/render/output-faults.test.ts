import {execFile} from 'node:child_process'
import {mkdir, readdir, writeFile} from 'node:fs/promises'
import {dirname, join} from 'node:path'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {resolveRenderOptions} from '../../src/lib/render/resolve-options.js'
import {renderComposition} from '../../src/lib/render/render-composition.js'
import {probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {FIXTURES, useScratchDir} from './support.js'
import {PROCESSES} from '../support/timeouts.js'

/** Faults a user runs into with real files and folders: what the render does before, and instead of, capturing. */

const SWATCH = join(FIXTURES, 'swatch.html')
const FAST = ['--fps', '5', '--quality', 'draft', '--workers', '1']

describe('the output format follows the --output extension', PROCESSES, () => {
  const scratch = useScratchDir()

  it('-o x.webm without --format renders webm; .mov, .gif and .mp4 map the same way; other extensions leave the format to --format', async () => {
    const output = join(scratch(), 'from-extension.webm')
    const result = await runCli(['render', SWATCH, ...FAST, '-o', output, '--quiet'])
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'vp9', nb_read_frames: '5'})
    for (const [name, format] of [['a.MOV', 'mov'], ['a.gif', 'gif'], ['a.mp4', 'mp4'], ['a.out', 'mp4'], ['frames', 'mp4']]) {
      expect(resolveRenderOptions({output: name}).format, name).toBe(format)
    }
    expect(resolveRenderOptions({output: 'frames'}, {format: 'png-sequence'}).format).toBe('png-sequence')
  })

  it('an extension no format writes is an error naming the known ones, and nothing is written', async () => {
    const output = join(scratch(), 'unknown', 'out.avi')
    const result = await runCli(['render', SWATCH, ...FAST, '-o', output])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[INVALID_FLAG\]: --output ".*out\.avi": no format writes \.avi files; known extensions are \.mp4 \(mp4\), \.mov \(mov\), \.webm \(webm\), \.gif \(gif\)/)
    expect(await readdir(scratch())).not.toContain('unknown')
    // --format wins, and the extension is checked against it; a frame directory takes any name.
    const explicit = await runCli(['render', SWATCH, ...FAST, '--format', 'gif', '-o', join(scratch(), 'unknown', 'out.avi')])
    expect(explicit.stderr).toMatch(/no format writes \.avi files.*or \.gif to render gif/)
    const frames = join(scratch(), 'frames.v2')
    await renderComposition({composition: SWATCH, options: resolveRenderOptions({fps: 5, quality: 'draft', workers: 1, format: 'png-sequence', output: frames})})
    expect((await readdir(frames)).filter((name) => name.endsWith('.png'))).toHaveLength(5)
  })

  it('an explicit --format that contradicts the extension is an error, and nothing is written', async () => {
    const output = join(scratch(), 'contradiction.webm')
    const result = await runCli(['render', SWATCH, ...FAST, '--format', 'mp4', '-o', output])
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/error \[INVALID_FLAG\]: --format mp4 contradicts --output ".*contradiction\.webm", a webm file; drop --format to render webm, or give the output the extension of mp4/)
    expect(() => resolveRenderOptions({format: 'png-sequence'}, {output: 'x.gif'})).toThrow(/--format png-sequence contradicts --output "x\.gif", a gif file/)
    expect(await readdir(scratch())).not.toContain('contradiction.webm')
  })
})

describe('the output folder, checked before capture', PROCESSES, () => {
  const scratch = useScratchDir()

  it('OUTPUT_NOT_WRITABLE before any frame is captured when the folder cannot be made', async () => {
    const blocker = join(scratch(), 'a-file')
    await writeFile(blocker, 'not a folder')
    for (const output of [join(blocker, 'out.mp4'), join(blocker, 'deeper', 'out.mp4')]) {
      const events: string[] = []
      await expect(
        renderComposition({composition: SWATCH, options: resolveRenderOptions({output, fps: 5, quality: 'draft'}), onEvent: (event) => events.push(event.type)}),
        output,
      ).rejects.toMatchObject({code: 'OUTPUT_NOT_WRITABLE', message: `--output: cannot write into ${dirname(output)} (a file is in the way); choose a folder you can write to`})
      expect(events).not.toContain('start')
    }
  })

  it('OUTPUT_NOT_WRITABLE for a read-only folder, before the browser starts', async () => {
    const readOnly = join(scratch(), 'read-only')
    await mkdir(readOnly)
    const result = await inPrivateMount(`mount -t tmpfs -o ro tmpfs ${readOnly}`, join(readOnly, 'out.mp4'), readOnly)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`error [OUTPUT_NOT_WRITABLE]: --output: cannot write into ${readOnly} (EROFS); choose a folder you can write to`)
    expect(result.stderr).not.toContain('frame 1/')
  })

  it('the next render of an output removes the partial files a killed render of it left, and only those', async () => {
    const dir = join(scratch(), 'leftovers')
    await mkdir(dir)
    const output = join(dir, 'clip.mp4')
    const mine = ['.clip.mp4.0badc0de.partial.mp4', '.clip.mp4.12345678.partial']
    const others = ['.other.mp4.abcdef01.partial.mp4', 'clip.mp4.notes']
    for (const name of [...mine, ...others]) await writeFile(join(dir, name), 'left behind')
    await mkdir(join(dir, '.clip.mp4.deadbeef.partial'))
    await renderComposition({composition: SWATCH, options: resolveRenderOptions({fps: 5, quality: 'draft', workers: 1, output})})
    expect((await readdir(dir)).sort()).toEqual([...others, 'clip.mp4'].sort())
  })

  it('a size the browser cannot draw is refused when the render is planned', async () => {
    const page = join(scratch(), 'too-wide.html')
    await writeFile(page, '<html><body><div data-composition-id="wide" data-width="20000" data-height="100" data-duration="1"></div></body></html>')
    const events: string[] = []
    await expect(renderComposition({composition: page, options: resolveRenderOptions({output: join(scratch(), 'wide.mp4')}), onEvent: (event) => events.push(event.type)})).rejects.toMatchObject({
      code: 'COMPOSITION_INVALID',
      message: 'data-width="20000": the browser draws frames of 1 to 16384 pixels a side; use a size in that range (for example 1920x1080)',
    })
    expect(events).not.toContain('start')
  })

  it('a full disk says "no space left on device" with the path, and leaves nothing there', async () => {
    // A one-page filesystem of its own: the video does not fit.
    const full = join(scratch(), 'full')
    await mkdir(full)
    const output = join(full, 'out.mp4')
    const result = await inPrivateMount(`mount -t tmpfs -o size=4k tmpfs ${full}`, output, full)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain(`error [NO_SPACE]: no space left on device while writing ${output}; free space on that disk`)
    expect(result.left).toEqual([])
  })
})

/**
 * Runs `engine render` in a private user and mount namespace (`unshare -Urm`) after `mount`, so a
 * test can give it a read-only or full filesystem of its own; returns what `folder` held afterwards.
 */
async function inPrivateMount(mount: string, output: string, folder: string) {
  const engine = `${process.execPath} ${join(REPO_ROOT, 'bin', 'run.js')} render ${join(FIXTURES, 'motion.html')} --fps 10 --quality draft --workers 1 --quiet -o ${output}`
  const script = `${mount} && ${engine}; code=$?; echo "left:$(ls -A ${folder} | tr '\\n' ' ')"; exit $code`
  const {code, stdout, stderr} = await promisify(execFile)('unshare', ['-Urm', 'sh', '-c', script], {cwd: REPO_ROOT}).then(
    ({stdout, stderr}) => ({code: 0, stdout, stderr}),
    (error: {code: number; stdout: string; stderr: string}) => error,
  )
  const left = /left:(.*)/.exec(stdout)?.[1].trim().split(' ').filter(Boolean) ?? ['(no listing)']
  return {code, stderr, left}
}
