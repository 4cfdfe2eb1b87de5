import {existsSync} from 'node:fs'
import {readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {functionChromiumDir} from '../../src/lib/browser/function-chromium.js'
import {imageTag} from '../../src/lib/container/container-image.js'
import {PINNED_FFMPEG, pinnedFfmpegDir} from '../../src/lib/encode/pinned-ffmpeg.js'
import {fontsConf} from '../../src/lib/profile/fonts-conf.js'
import {DETERMINISTIC_PROFILE, pinnedPackages} from '../../src/lib/profile/render-profile.js'
import {useScratchDir} from '../determinism/support.js'
import {REPO_ROOT, runCli} from '../support/run-cli.js'
import {PROCESSES} from '../support/timeouts.js'

const DOCKER_DIR = join(REPO_ROOT, 'docker')
const profile = DETERMINISTIC_PROFILE

/** `name=version` pins on the apt-get install line(s) of the Dockerfile. */
function aptPins(dockerfile: string): string[] {
  const install = dockerfile.slice(dockerfile.indexOf('apt-get install'), dockerfile.indexOf('rm -rf /var/lib/apt/lists'))
  return [...install.matchAll(/^\s+([a-z0-9][a-z0-9.+-]*=\S+) \\$/gm)].map((match) => match[1])
}

describe('the container image definition', PROCESSES, () => {
  it('installs exactly the profile packages, each at its pinned version, from one Debian snapshot', async () => {
    const dockerfile = await readFile(join(DOCKER_DIR, 'Dockerfile'), 'utf8')
    expect(aptPins(dockerfile)).toEqual(pinnedPackages(profile).map((pkg) => `${pkg.name}=${pkg.version}`))
    expect(dockerfile).toContain(`ARG DEBIAN_SNAPSHOT=${profile.debian.snapshot}`)
    expect(dockerfile).toMatch(/snapshot\.debian\.org\/archive\b/)
    expect(dockerfile).toContain(`ARG NODE_IMAGE=${profile.nodeImage}`)
    expect(dockerfile).toContain('FROM --platform=linux/amd64 ${NODE_IMAGE}')
    expect(dockerfile).toContain(`${profile.browser.executablePath}`)
    expect(dockerfile).toContain('ENTRYPOINT ["engine"]')
  })

  it("carries the serverless function's Chromium build where the profile finds it", async () => {
    const dockerfile = await readFile(join(DOCKER_DIR, 'Dockerfile'), 'utf8')
    const directory = /^ENV ENGINE_FUNCTION_CHROMIUM_DIR=(\S+)$/m.exec(dockerfile)?.[1]
    expect(directory).toBe('/opt/function-chromium')
    // Set before the download, so that it lands there; the renders (any uid) find it through the same variable.
    expect(dockerfile.indexOf('ENV ENGINE_FUNCTION_CHROMIUM_DIR=')).toBeLessThan(dockerfile.indexOf('engine browser install --function'))
    expect(dockerfile).toContain('ENGINE_NPM_REGISTRY="$NPM_REGISTRY"')
    expect(functionChromiumDir({ENGINE_FUNCTION_CHROMIUM_DIR: directory, ENGINE_CACHE_DIR: '/tmp/engine-cache'})).toBe(directory)
  })

  it("puts the serverless function's ffmpeg ahead of Debian's on PATH when it can be downloaded", async () => {
    const dockerfile = await readFile(join(DOCKER_DIR, 'Dockerfile'), 'utf8')
    expect(dockerfile).toContain('ENGINE_FFMPEG_MIRROR="$FFMPEG_MIRROR" ENGINE_CACHE_DIR=/opt/engine-ffmpeg engine ffmpeg install')
    // Where `engine ffmpeg install` puts the x86_64 build under that cache (the image is linux/amd64).
    const linked = /ln -s (\/opt\/engine-ffmpeg\/\S+)\/\$program \/usr\/local\/bin\/\$program/.exec(dockerfile)?.[1]
    const directory = pinnedFfmpegDir(PINNED_FFMPEG.x86_64, {ENGINE_CACHE_DIR: '/opt/engine-ffmpeg'})
    expect(linked && new RegExp(`^${linked.replace(/[.]/g, '\\.').replace('*', '[^/]+')}$`).test(directory)).toBe(true)
  })

  it('ships a fontconfig that sees only the profile fonts, and their checksums', async () => {
    expect(await readFile(join(DOCKER_DIR, 'fonts.conf'), 'utf8')).toBe(fontsConf(profile.fonts, '/var/cache/engine-fontconfig'))
    expect(await readFile(join(DOCKER_DIR, 'fonts.sha256'), 'utf8')).toBe(profile.fonts.files.map((file) => `${file.sha256}  ${file.path}\n`).join(''))
    const conf = await readFile(join(DOCKER_DIR, 'fonts.conf'), 'utf8')
    expect(conf).not.toContain('<include')
    expect(conf).toContain('<rejectfont><glob>*</glob></rejectfont>')
  })

  it('is part of the published package', async () => {
    const manifest = JSON.parse(await readFile(join(REPO_ROOT, 'package.json'), 'utf8')) as {files: string[]}
    expect(manifest.files).toContain('docker')
  })
})

describe('engine docker build --context', PROCESSES, () => {
  const scratch = useScratchDir()

  it('writes a build context with this engine inside and prints the build command', async () => {
    const context = join(scratch(), 'context')
    const result = await runCli(['docker', 'build', '--context', context])
    expect(result.code, result.stderr).toBe(0)
    expect(result.stdout.trim()).toBe(
      `docker build --platform linux/amd64 --tag ${imageTag()} --build-arg ENGINE_VERSION=${imageTag().split(':')[1]} ` +
        `--label org.opencontainers.image.version=${imageTag().split(':')[1]} --label engine.profile=deterministic --file ${join(context, 'Dockerfile')} ${context}`,
    )
    for (const file of ['Dockerfile', 'fonts.conf', 'fonts.sha256', 'engine/package.json', 'engine/package-lock.json', 'engine/bin/run.js', 'engine/dist/src/commands/render.js']) {
      expect(existsSync(join(context, file)), file).toBe(true)
    }
  })

  it('refuses a runtime it does not know', async () => {
    const result = await runCli(['docker', 'build', '--context', join(scratch(), 'other'), '--runtime', 'lxc'])
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('error [INVALID_FLAG]: --runtime: "lxc" is not a container runtime engine can use; use docker or podman')
  })
})
