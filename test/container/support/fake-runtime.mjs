// A stand-in for the docker/podman client, for tests on machines without a container engine.
// `run` starts the engine it is given (FAKE_RUNTIME_ENGINE) on this machine with the arguments the
// container would get, mount targets translated back to their sources, so a --docker render really
// renders. Every invocation is appended to FAKE_RUNTIME_LOG as a JSON array of its arguments.
//   FAKE_RUNTIME_ENGINE_DOWN=1      `info` fails as a client without a running engine does
//   FAKE_RUNTIME_IMAGE=missing      `image inspect` fails until `build` has run
//   FAKE_RUNTIME_RUN_EXIT=<code>    `run` exits with that code at once, printing nothing on stdout
import {spawn} from 'node:child_process'
import {appendFileSync, existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

const args = process.argv.slice(2)
const env = process.env
appendFileSync(env.FAKE_RUNTIME_LOG, JSON.stringify(args) + '\n')
const state = (name) => join(env.FAKE_RUNTIME_STATE, name)

switch (args[0]) {
  case '--version':
    console.log(`${env.FAKE_RUNTIME_NAME} version 99.0.0-fake`)
    break
  case 'info':
    if (env.FAKE_RUNTIME_ENGINE_DOWN) {
      console.error(`Cannot connect to the ${env.FAKE_RUNTIME_NAME} daemon at unix:///var/run/fake.sock. Is the daemon running?`)
      process.exit(1)
    }
    console.log(JSON.stringify(env.FAKE_RUNTIME_NAME === 'podman' ? {host: {security: {rootless: true}}} : {SecurityOptions: ['name=seccomp']}))
    break
  case 'image':
    process.exit(env.FAKE_RUNTIME_IMAGE === 'missing' && !existsSync(state('built')) ? 1 : 0)
    break
  case 'build':
    console.error('#1 fake build step')
    writeFileSync(state('built'), '')
    break
  case 'kill':
    process.kill(Number(readFileSync(state(`${args[1]}.pid`), 'utf8')), 'SIGKILL')
    break
  case 'run':
    run(args.slice(1))
    break
  default:
    console.error(`fake runtime: unknown command ${args[0]}`)
    process.exit(2)
}

function run(rest) {
  if (env.FAKE_RUNTIME_RUN_EXIT) {
    console.error('fake runtime: the container was killed')
    process.exit(Number(env.FAKE_RUNTIME_RUN_EXIT))
  }
  const withValue = new Set(['--pull', '--name', '--platform', '--shm-size', '--user', '--userns', '--security-opt', '--workdir', '--mount', '--env'])
  const options = {mounts: [], env: {}}
  let index = 0
  for (; index < rest.length && rest[index].startsWith('--'); index++) {
    const flag = rest[index]
    if (!withValue.has(flag)) continue
    const value = rest[++index]
    if (flag === '--mount') {
      const fields = Object.fromEntries(value.split(',').map((field) => field.split('=')))
      options.mounts.push({source: fields.source, target: fields.target})
    } else if (flag === '--env') {
      const at = value.indexOf('=')
      options.env[value.slice(0, at)] = value.slice(at + 1)
    } else options[flag.slice(2)] = value
  }
  const command = rest.slice(index + 1)
  const toHost = (arg) => {
    for (const {source, target} of options.mounts) {
      if (arg === target) return source
      if (arg.startsWith(target + '/')) return source + arg.slice(target.length)
    }
    return arg
  }
  // A container sees none of the host's engine settings: only what `--env` passes.
  const {ENGINE_DATA_DIR: _data, ENGINE_CONFIG_DIR: _config, ...hostEnv} = env
  const child = spawn(process.execPath, [env.FAKE_RUNTIME_ENGINE, ...command.map(toHost)], {
    cwd: options.workdir,
    env: {...hostEnv, ...options.env, PATH: env.FAKE_RUNTIME_HOST_PATH},
    stdio: 'inherit',
  })
  writeFileSync(state(`${options.name}.pid`), String(child.pid))
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGKILL' ? 137 : 1)))
}
