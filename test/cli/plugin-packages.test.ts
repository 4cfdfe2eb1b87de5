import {execFile} from 'node:child_process'
import {existsSync} from 'node:fs'
import {mkdir, mkdtemp, readFile, rm, symlink, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {ffprobe, probeVideoStream} from '../support/media.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'

const exec = promisify(execFile)
const EXAMPLE = join(REPO_ROOT, 'examples', 'format-plugin')
const COLOR = join(REPO_ROOT, 'test', 'server', 'fixtures', 'color.html')
const TSC = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc')

// npm pack and npm install (offline: the plugins have no dependencies), several engine processes.
describe('plugin packages: install from a path or tarball, engine plugins new, the types-only entry', {timeout: 240_000}, () => {
  let dir: string
  let env: NodeJS.ProcessEnv
  const cli = (args: string[], cwd?: string) => runCli(args, {env, cwd})

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'engine-plugin-packages-'))
    env = {NODE_ENV: undefined, ENGINE_DATA_DIR: join(dir, 'data'), ENGINE_CONFIG_DIR: join(dir, 'config'), XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config')}
  })
  afterAll(async () => {
    if (dir) await rm(dir, {recursive: true, force: true})
  })

  it('plugins install /abs/x.tgz installs the tarball (not a GitHub URL); its format is known; uninstall removes it', async () => {
    await exec('npm', ['pack', EXAMPLE, '--pack-destination', dir], {cwd: dir})
    const tarball = join(dir, 'engine-plugin-mkv-1.0.0.tgz')
    const installed = await cli(['plugins', 'install', tarball])
    expect(installed.code, installed.stderr).toBe(0)
    expect((await cli(['plugins'])).stdout).toMatch(/engine-plugin-mkv 1\.0\.0\n/)
    // Installed as a user plugin (a copy in the data dir), not linked: the peer engine is not pulled in.
    expect(existsSync(join(dir, 'data', 'node_modules', 'engine-plugin-mkv', 'formats.js'))).toBe(true)
    expect(existsSync(join(dir, 'data', 'node_modules', 'html-video-engine'))).toBe(false)
    expect(await cli(['lint', COLOR, '--format', 'mkv'])).toMatchObject({code: 0, stderr: ''})
    expect((await cli(['plugins', 'uninstall', 'engine-plugin-mkv'])).code).toBe(0)
    expect((await cli(['lint', COLOR, '--format', 'mkv'])).stderr).toMatch(/"mkv" is not a known format/)
  })

  it('a relative directory installs too; a path that does not exist is refused at once, naming it', async () => {
    const relative = await cli(['plugins', 'install', './examples/format-plugin'], REPO_ROOT)
    expect(relative.code, relative.stderr).toBe(0)
    expect(await cli(['lint', COLOR, '--format', 'mkv'])).toMatchObject({code: 0, stderr: ''})
    expect((await cli(['plugins', 'uninstall', 'engine-plugin-mkv'])).code).toBe(0)

    const missing = await cli(['plugins', 'install', join(dir, 'nope.tgz')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toBe(`error [INVALID_FLAG]: plugins install: ${join(dir, 'nope.tgz')} does not exist; give the path of a plugin's directory or of its npm pack tarball, or an npm package name\n`)
  })

  it('plugins new writes a plugin that links and renders its format as generated', async () => {
    const made = await cli(['plugins', 'new', 'engine-plugin-mkv2', '--json'], dir)
    expect(made.code, made.stderr).toBe(0)
    const scaffold = JSON.parse(made.stdout) as {directory: string; formatName: string; files: string[]}
    expect(scaffold).toMatchObject({directory: join(dir, 'engine-plugin-mkv2'), formatName: 'mkv2', files: ['package.json', 'formats.js', 'README.md']})
    const pjson = JSON.parse(await readFile(join(scaffold.directory, 'package.json'), 'utf8')) as Record<string, unknown>
    expect(pjson).toMatchObject({
      oclif: {hooks: {'engine:formats': './formats.js'}},
      peerDependencies: {'html-video-engine': expect.stringMatching(/^>=/)},
      peerDependenciesMeta: {'html-video-engine': {optional: true}},
    })
    expect(pjson).not.toHaveProperty('dependencies')

    expect((await cli(['plugins', 'new', 'engine-plugin-mkv2'], dir)).stderr).toMatch(/engine-plugin-mkv2 is not empty; give another name or --dir/)
    expect((await cli(['plugins', 'new', 'Not A Name'], dir)).stderr).toMatch(/"Not A Name" is not an npm package name/)

    expect((await cli(['plugins', 'link', scaffold.directory, '--no-install'])).code).toBe(0)
    const output = join(dir, 'scaffolded.mkv')
    const render = await cli(['render', COLOR, '--format', 'mkv2', '--frames', '0-9', '-o', output, '--quiet'])
    expect(render.code, render.stderr).toBe(0)
    expect(((await ffprobe(output, ['-show_format'])).format as {format_name: string}).format_name).toMatch(/matroska/)
    expect(await probeVideoStream(output)).toMatchObject({codec_name: 'h264', width: 320, height: 180, nb_read_frames: '10'})
  })

  it('the scaffold type-checks against the types-only entry html-video-engine/plugin-types, which catches a wrong field', async () => {
    const project = join(dir, 'typed')
    await mkdir(join(project, 'node_modules'), {recursive: true})
    await symlink(REPO_ROOT, join(project, 'node_modules', 'html-video-engine'))
    const made = await cli(['plugins', 'new', 'engine-plugin-typed', '--dir', join(project, 'src')])
    expect(made.code, made.stderr).toBe(0)
    const tsconfig = {compilerOptions: {allowJs: true, checkJs: true, noEmit: true, strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', skipLibCheck: true, types: []}, include: ['src/*.js']}
    await writeFile(join(project, 'tsconfig.json'), JSON.stringify(tsconfig))
    const tsc = () => exec(process.execPath, [TSC, '-p', project]).then(() => '', (error: {stdout: string}) => error.stdout)
    expect(await tsc()).toBe('')

    const formats = join(project, 'src', 'formats.js')
    await writeFile(formats, (await readFile(formats, 'utf8')).replace("worker: 'video-segment'", "worker: 'video-segmnet'"))
    expect(await tsc()).toMatch(/formats\.js.*error TS/)
  })
})
