import {Flags} from '@oclif/core'
import {resolve} from 'node:path'
import {BaseCommand} from '../../cli/base-command.js'
import {writeBuildContext} from '../../lib/container/build-context.js'
import {engineVersion, imageBuildArgs, imageTag} from '../../lib/container/container-image.js'
import {CONTAINER_RUNTIME_NAMES, detectContainerRuntime, type ContainerRuntimeName} from '../../lib/container/detect-container-runtime.js'
import {buildImage} from '../../lib/container/ensure-image.js'
import {CONTAINER_RUNTIME_ENV, pickContainerRuntime} from '../../lib/container/pick-container-runtime.js'
import {EngineError} from '../../lib/errors/engine-error.js'

export default class DockerBuild extends BaseCommand {
  static override summary = 'Build the engine-render image that `engine render --docker` renders in'
  static override description =
    'The image holds this engine, the pinned chromium-headless-shell, ffmpeg and the fixed font set of the deterministic profile. ' +
    '`render --docker` builds it on first use; run this ahead of time, or with --context to get a build context for another machine. ' +
    'Building needs the internet (Node base image, snapshot.debian.org, npm registry).'
  static override examples = [
    '<%= config.bin %> docker build',
    'ENGINE_CONTAINER_RUNTIME=podman <%= config.bin %> docker build',
    '<%= config.bin %> docker build --context ./engine-image  # then: docker build --platform linux/amd64 -t engine-render:<version> ./engine-image',
  ]
  static override flags = {
    context: Flags.string({description: 'write the build context into this directory and print the build command instead of building'}),
    runtime: Flags.string({description: `container runtime to build with: ${CONTAINER_RUNTIME_NAMES.join(' or ')} (default: the first usable; env ${CONTAINER_RUNTIME_ENV})`}),
    quiet: Flags.boolean({char: 'q', description: 'print only the image tag'}),
    json: Flags.boolean({description: 'print {tag, runtime} as JSON ({contextDir, command} with --context); build logs stay on stderr'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(DockerBuild)
    const version = engineVersion()
    const tag = imageTag(version)
    const preferred = flags.runtime ?? process.env[CONTAINER_RUNTIME_ENV]
    const preferredFrom = flags.runtime === undefined ? CONTAINER_RUNTIME_ENV : '--runtime'
    if (flags.context !== undefined) {
      const runtime = preferred ?? 'docker'
      if (!isRuntimeName(runtime)) throw new EngineError('INVALID_FLAG', `${preferredFrom}: "${runtime}" is not a container runtime engine can use; use docker or podman`)
      const contextDir = resolve(flags.context)
      await writeBuildContext(contextDir)
      const command = [runtime, ...imageBuildArgs({runtime, tag, version, contextDir})]
      this.log(flags.json ? JSON.stringify({tag, contextDir, command}) : command.map(shellQuote).join(' '))
      return
    }
    const runtime = pickContainerRuntime(await detectContainerRuntime(), {preferred, preferredFrom, purpose: 'engine docker build builds a container image'})
    const {quiet} = flags
    if (!quiet) process.stderr.write(`building ${tag} with ${runtime.name}\n`)
    await buildImage({runtime, tag, version, onLog: quiet ? undefined : (line) => process.stderr.write(line + '\n')})
    if (flags.json) this.log(JSON.stringify({tag, runtime: runtime.name}))
    else this.log(flags.quiet ? tag : `${tag} is ready (${runtime.name}); \`engine render --docker\` uses it`)
  }
}

function isRuntimeName(name: string): name is ContainerRuntimeName {
  return (CONTAINER_RUNTIME_NAMES as readonly string[]).includes(name)
}

function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`
}
