import {afterAll} from 'vitest'

// Whatever a file sets in process.env (a shared stack's token and endpoint, a poll interval) is
// undone after it. Each file has a process of its own today (vitest isolate: true), but with files
// sharing a worker's process (isolate: false) execution-end-rule's
// stack endpoint reached lambda-campaign-inputs' "in AWS" refusals: see CONTRIBUTING.md.
const saved: NodeJS.ProcessEnv = {...process.env}
afterAll(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name]
  Object.assign(process.env, saved)
})
