import {execFile} from 'node:child_process'
import {promisify} from 'node:util'
import {describe, expect, it} from 'vitest'
import {probeBrowser} from '../../src/lib/browser/probe-browser.js'
import {resolveBrowser} from '../../src/lib/browser/resolve-browser.js'
import {runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const exec = promisify(execFile)

interface Report {
  ok: boolean
  checks: {name: string; status: string; required: boolean; summary: string; fix?: string; info: Record<string, unknown>}[]
}

describe('engine doctor', PROCESSES, () => {
  it('reports every dependency in JSON and exits 0 on this machine', async () => {
    const result = await runCli(['doctor', '--json'])
    expect(result.code).toBe(0)
    const report = JSON.parse(result.stdout) as Report
    expect(report.checks.map((check) => check.name)).toEqual(['javascript runtime', 'ffmpeg', 'ffprobe', 'browser', 'container runtime', 'fonts', 'plugins'])
    const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]))
    expect(byName.ffmpeg.info.formats).toEqual(expect.arrayContaining([expect.objectContaining({format: 'mp4', available: true})]))
    expect(byName.browser.info).toMatchObject({beginFrame: true, version: expect.stringMatching(/Chrome/)})
    expect(byName['container runtime'].required).toBe(false)
    expect(byName.fonts).toMatchObject({status: 'ok', summary: expect.stringMatching(/^41 bundled families, \d+ in the font cache/)})
    expect(byName.fonts.info.bundled).toEqual(expect.arrayContaining(['Inter', 'JetBrains Mono', 'Noto Sans']))
  })

  it('shows the browser a render resolves, with the version that executable states itself', async () => {
    const browser = await resolveBrowser()
    // Whatever build setup installed: the executable's own --version, not a pinned number.
    const {stdout} = await exec(browser.executablePath, ['--version'], {timeout: 30_000})
    const build = stdout.match(/\d+\.\d+\.\d+\.\d+/)?.[0]
    expect(build, stdout).toBeDefined()
    // The version the browser reports over the protocol once launched, as renders record it.
    expect((await probeBrowser(browser.executablePath)).version).toMatch(new RegExp(`Chrome/${build!.replaceAll('.', '\\.')}$`))

    const report = JSON.parse((await runCli(['doctor', '--json'])).stdout) as Report
    expect(report.checks.find((check) => check.name === 'browser')).toMatchObject({
      status: 'ok',
      info: {path: browser.executablePath, source: browser.source, version: expect.stringContaining(build!)},
    })
    const human = await runCli(['doctor'])
    expect(human.code).toBe(0)
    expect(human.stdout.split('\n').find((line) => line.includes('browser:'))).toMatch(new RegExp(`^ok +browser: ${browser.executablePath} \\(${browser.source}\\), \\S*${build!.replaceAll('.', '\\.')}`))
  })

  it('exits non-zero with the fix when ffmpeg is missing', async () => {
    const result = await runCli(['doctor'], {env: {ENGINE_FFMPEG_PATH: '/nonexistent/ffmpeg'}})
    expect(result.code).toBe(1)
    expect(result.stdout).toMatch(/missing\s+ffmpeg: ENGINE_FFMPEG_PATH="\/nonexistent\/ffmpeg" does not run/)
    expect(result.stdout).toContain('fix: correct or unset ENGINE_FFMPEG_PATH; or apt-get install -y ffmpeg')
  })

  it('reports a browser path that does not exist', async () => {
    const result = await runCli(['doctor', '--json', '--browser-path', '/nonexistent/chrome'])
    expect(result.code).toBe(1)
    const report = JSON.parse(result.stdout) as Report
    const browser = report.checks.find((check) => check.name === 'browser')!
    expect(browser.status).toBe('missing')
    expect(browser.summary).toContain('/nonexistent/chrome')
  })
})
