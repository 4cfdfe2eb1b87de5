import {mkdir, writeFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {browserArgs, browserEnv} from '../../src/lib/browser/launch-browser.js'
import {isEngineError} from '../../src/lib/errors/engine-error.js'
import {prepareProfileFonts} from '../../src/lib/profile/prepare-profile-fonts.js'
import {DETERMINISTIC_PROFILE, type RenderProfile} from '../../src/lib/profile/render-profile.js'
import {resolveProfileBrowser} from '../../src/lib/profile/resolve-profile-browser.js'
import {useScratchDir} from './support.js'

describe('resolving the deterministic profile on this machine', () => {
  const scratch = useScratchDir()

  it('launches the pinned browser with the profile flags, its fonts.conf and no host font or locale settings', async () => {
    const env = {ENGINE_CACHE_DIR: join(scratch(), 'cache')}
    const {browser, notices} = await resolveProfileBrowser(DETERMINISTIC_PROFILE, {env})
    expect(browser).toMatchObject({executablePath: '/usr/bin/chromium-headless-shell', beginFrame: true, gpu: false})
    // Debian's security archive moves on from the pinned build (the container keeps it through its
    // snapshot); a machine with a newer one is told so, once, and renders anyway.
    if (browser.version === DETERMINISTIC_PROFILE.browser.product) expect(notices).toEqual([])
    else expect(notices).toEqual([expect.objectContaining({code: 'profile-browser-mismatch', message: expect.stringContaining(`is ${browser.version}`)})])
    const fontsConf = join(scratch(), 'cache', 'profiles', 'deterministic', 'fonts.conf')
    expect(browser.profile?.env).toEqual({TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_FILE: fontsConf})

    expect(browserArgs(browser)).toEqual(expect.arrayContaining([...DETERMINISTIC_PROFILE.browserArgs, '--enable-begin-frame-control', '--disable-gpu']))
    const launchEnv = browserEnv(browser, {PATH: '/usr/bin', FONTCONFIG_FILE: '/home/ada/fonts.conf', FONTCONFIG_PATH: '/home/ada', LC_CTYPE: 'de_DE.UTF-8', TZ: 'Europe/Berlin'})
    expect(launchEnv).toEqual({PATH: '/usr/bin', TZ: 'UTC', LANG: 'C.UTF-8', LC_ALL: 'C.UTF-8', FONTCONFIG_FILE: fontsConf})
  })

  it('warns when the browser is another build than the pinned one', async () => {
    const other: RenderProfile = {...DETERMINISTIC_PROFILE, browser: {...DETERMINISTIC_PROFILE.browser, product: 'HeadlessChrome/1.0.0.0'}}
    const {notices} = await resolveProfileBrowser(other, {env: {ENGINE_CACHE_DIR: join(scratch(), 'cache')}})
    expect(notices).toEqual([expect.objectContaining({code: 'profile-browser-mismatch', message: expect.stringContaining('pins HeadlessChrome/1.0.0.0')})])
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
    expect((error as Error).message).toContain('apt-get install -y chromium-headless-shell=156.0.8078.79-1~deb12u1')
  })
})
