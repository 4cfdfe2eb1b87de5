import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {existsSync} from 'node:fs'
import {FUNCTION_CHROMIUM, FUNCTION_CHROMIUM_ARGS, functionChromiumDir} from '../../src/lib/browser/function-chromium.js'
import {browserArgs, browserEnv, serverlessBrowserArgs} from '../../src/lib/browser/launch-browser.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {prepareProfileFonts} from '../../src/lib/profile/prepare-profile-fonts.js'
import {DETERMINISTIC_PROFILE, type RenderProfile} from '../../src/lib/profile/render-profile.js'
import {resolveProfileBrowser} from '../../src/lib/profile/resolve-profile-browser.js'
import {useScratchDir} from './support.js'

describe('resolving the deterministic profile on this machine', () => {
  const scratch = useScratchDir()

  it("launches the serverless function's Chromium build (unpacked from the installed package into the cache) with the function's flags, the profile flags, its fonts.conf and no host font or locale settings", async () => {
    const env = {ENGINE_CACHE_DIR: join(scratch(), 'cache')}
    const {browser, notices} = await resolveProfileBrowser(DETERMINISTIC_PROFILE, {env})
    expect(browser).toMatchObject({executablePath: join(functionChromiumDir(env), 'chromium'), source: 'function-chromium', beginFrame: true, gpu: false, version: FUNCTION_CHROMIUM.product})
    expect(notices).toEqual([])
    // SwiftShader's libraries sit beside the executable, where the build looks for them.
    expect(existsSync(join(functionChromiumDir(env), 'libGLESv2.so'))).toBe(true)
    const fontsConf = join(scratch(), 'cache', 'profiles', 'deterministic', 'fonts.conf')
    expect(browser.profile?.env).toEqual({TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_FILE: fontsConf})

    expect(browserArgs(browser)).toEqual(expect.arrayContaining([...DETERMINISTIC_PROFILE.browserArgs, ...FUNCTION_CHROMIUM_ARGS, '--enable-begin-frame-control', '--disable-gpu']))
    const launchEnv = browserEnv(browser, {PATH: '/usr/bin', FONTCONFIG_FILE: '/home/ada/fonts.conf', FONTCONFIG_PATH: '/home/ada', LC_CTYPE: 'de_DE.UTF-8', TZ: 'Europe/Berlin'})
    expect(launchEnv).toEqual({PATH: '/usr/bin', TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_FILE: fontsConf})
  })

  it("without the function's build: renders with the Debian build and says exactly how to get the function's", async () => {
    const {browser, notices} = await resolveProfileBrowser(DETERMINISTIC_PROFILE, {env: {ENGINE_CACHE_DIR: join(scratch(), 'cache')}, findFunctionBuild: async () => undefined})
    expect(browser).toMatchObject({executablePath: DETERMINISTIC_PROFILE.browser.executablePath, source: 'system-headless-shell', serverlessArgs: undefined})
    expect(notices).toEqual([expect.objectContaining({code: 'profile-browser-mismatch', message: expect.stringContaining(`the serverless function's build (${FUNCTION_CHROMIUM.product}), but ${DETERMINISTIC_PROFILE.browser.executablePath} is`)})])
    expect(notices[0].message).toContain(`engine browser install --function`)
    expect(notices[0].message).toContain(`npm install ${FUNCTION_CHROMIUM.package}@${FUNCTION_CHROMIUM.version}`)
  })

  it("keeps its copy of the function's flags in step with the package's", async () => {
    const chromium = (await import(FUNCTION_CHROMIUM.package)) as {default: {args: string[]}}
    expect(FUNCTION_CHROMIUM_ARGS).toEqual(serverlessBrowserArgs(chromium.default.args))
  })

  it('refuses a font set that is not the pinned one, naming the packages to install', async () => {
    const fonts = join(scratch(), 'fonts')
    await mkdir(fonts, {recursive: true})
    await writeFile(join(fonts, 'Changed.ttf'), 'not the pinned font')
    const profile: RenderProfile = {
      ...DETERMINISTIC_PROFILE,
      name: 'test-fonts',
      fonts: {
        ...DETERMINISTIC_PROFILE.fonts,
        files: [
          {path: join(fonts, 'Changed.ttf'), sha256: '0'.repeat(64)},
          {path: join(fonts, 'Missing.ttf'), sha256: '0'.repeat(64)},
        ],
      },
    }
    const error = await prepareProfileFonts(profile, {ENGINE_CACHE_DIR: join(scratch(), 'cache')}).catch((caught: unknown) => caught)
    expect(isEngineError(error, 'PROFILE_UNAVAILABLE')).toBe(true)
    const {message} = error as Error
    expect(message).toContain(`${join(fonts, 'Changed.ttf')} is another version of the font`)
    expect(message).toContain(`${join(fonts, 'Missing.ttf')} is missing`)
    expect(message).toContain('apt-get install -y fonts-dejavu-core=2.37-6 fonts-liberation=1:1.07.4-11')
    expect(message).toContain('--docker')
  })

  it('refuses a browser that does not run, saying how to install the pinned one', async () => {
    const error = await resolveProfileBrowser(DETERMINISTIC_PROFILE, {browserPath: join(scratch(), 'no-such-browser'), env: {ENGINE_CACHE_DIR: join(scratch(), 'cache')}}).catch(
      (caught: unknown) => caught,
    )
    expect(isEngineError(error, 'PROFILE_UNAVAILABLE')).toBe(true)
    expect((error as Error).message).toContain('engine browser install --function')
    expect((error as Error).message).toContain('apt-get install -y chromium-headless-shell=156.0.8078.79-1~deb12u1')
  })
})
