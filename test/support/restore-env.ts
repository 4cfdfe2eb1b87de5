import {afterAll} from 'vitest'

// Files share their worker's process (vitest.config.ts, isolate: false), and setup files run before
// each file is imported: whatever a file sets in process.env (a shared stack's token and endpoint, a
// poll interval) is undone after it, so the next file starts from the environment this one found.
const saved: NodeJS.ProcessEnv = {...process.env}
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
  Object.assign(process.env, saved)
})
