// node watchdog.mjs <pid>[,<pid>...] <command> [args...]
//
// Runs <command> as its child (same standard streams, same process group) for as long as every
// process <pid> lives, and ends it when one of them is gone. A test run that is SIGKILLed (a CI timeout,
// the mutation runner's bound) runs no teardown: without this, a local stack the run started
// would keep its port, its function environments and their browsers until the machine restarts.
// A signal sent to the watchdog goes on to the command; the watchdog exits with the command.
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'

const [watched, command, ...args] = process.argv.slice(2)
const watchedPids = (watched ?? '').split(',').map(Number)
if (!watchedPids.every((pid) => pid > 0) || !command) {
  console.error('usage: node watchdog.mjs <pid>[,<pid>...] <command> [args...]')
  process.exit(2)
}

/** How often the watched process is looked at, and how long the command gets to stop on SIGTERM. */
const POLL_MS = 500
const GRACE_MS = 10_000

const child = spawn(command, args, {stdio: 'inherit'})
child.on('error', (error) => {
  console.error(`watchdog: ${command}: ${error.message}`)
  process.exit(127)
})
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)))

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal))

/** Running, and not a zombie (a killed process whose parent has not reaped it yet has ended). */
const alive = (pid) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
  } catch {
    return false
  }
}

const poll = setInterval(() => {
  if (watchedPids.every(alive)) return
  clearInterval(poll)
  child.kill('SIGTERM')
  setTimeout(() => child.kill('SIGKILL'), GRACE_MS).unref()
}, POLL_MS)
