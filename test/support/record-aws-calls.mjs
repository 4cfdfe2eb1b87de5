// Preloaded (NODE_OPTIONS=--import) into the CLI, the local stack and its function children by
// tests that evaluate every AWS call against the IAM policies deploy generates
// (test/lambda/iam-every-call.test.ts). Each SDK call any client of the process sends is appended
// to ENGINE_TEST_AWS_CALLS/<who>-<pid>.jsonl, with who made it: the function (a Lambda child), the
// workflows (the local stack process: its S3 calls are what Step Functions' ItemReader and
// ResultWriter make under the state machine's role) or the caller (any other command).
import {appendFileSync, mkdirSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'

const directory = process.env.ENGINE_TEST_AWS_CALLS
if (directory) {
  const who = /handler-child|bundle-runtime-child/.test(process.argv[1] ?? '') ? 'function' : process.argv.includes('local') && process.argv.includes('lambda') ? 'workflows' : 'caller'
  const file = join(directory, `${who}-${process.pid}.jsonl`)
  mkdirSync(directory, {recursive: true})
  // Every AWS SDK v3 client extends this one class (the SDK resolves it to its CommonJS build).
  const {Client} = createRequire(import.meta.url)('@smithy/core/client')
  const send = Client.prototype.send
  Client.prototype.send = function (command, ...rest) {
    const input = JSON.parse(JSON.stringify(command.input ?? {}, (key, value) => (key === 'Body' || key === 'Payload' || key === 'definition' ? undefined : value)))
    const line = {who, at: Date.now(), service: this.config?.serviceId, command: command.constructor.name.replace(/Command$/, ''), input}
    const write = (error) => appendFileSync(file, `${JSON.stringify({...line, ...(error && {error: error.name})})}\n`)
    // With how it ended: a missing object is a 404 on AWS only for a caller who may list the bucket.
    const sent = send.call(this, command, ...rest)
    if (typeof sent?.then !== 'function') {
      write()
      return sent
    }
    return sent.then(
      (output) => (write(), output),
      (error) => {
        write(error)
        throw error
      },
    )
  }
}
