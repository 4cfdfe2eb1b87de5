import type {DoctorCheck} from './doctor-check.js'

export const MIN_NODE = {major: 22, minor: 12}

export function checkJavascriptRuntime(version: string = process.versions.node): DoctorCheck {
  const [major, minor] = version.split('.').map(Number)
  const ok = major > MIN_NODE.major || (major === MIN_NODE.major && minor >= MIN_NODE.minor)
  return {
    name: 'javascript runtime',
    status: ok ? 'ok' : 'missing',
    required: true,
    summary: `Node.js ${version}${ok ? '' : ` (needs >= ${MIN_NODE.major}.${MIN_NODE.minor})`}`,
    fix: ok ? undefined : 'install Node.js 22 (for example `npm install -g node@22`)',
    info: {version, execPath: process.execPath},
  }
}
