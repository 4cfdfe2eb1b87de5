import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'

export default class Serve extends BaseCommand {
  static override summary = 'Start the producer server: a FIFO render queue with server-sent events'
  static override examples = ['<%= config.bin %> serve --port 9847 --max-concurrent-renders 2']
  static override flags = {
    port: Flags.integer({description: 'port to listen on', default: 9847}),
    host: Flags.string({description: 'address to bind', default: '127.0.0.1'}),
    root: Flags.string({description: 'directory compositions are served from (default: working directory)'}),
    'max-concurrent-renders': Flags.integer({
      description: 'renders run at once, 1-10 (env PRODUCER_MAX_CONCURRENT_RENDERS)',
      min: 1,
      max: 10,
    }),
    'max-queue': Flags.integer({description: 'reject requests with 429 when this many are waiting'}),
    token: Flags.string({description: 'bearer token required when binding a non-loopback address', env: 'ENGINE_SERVER_TOKEN'}),
  }

  async run(): Promise<void> {
    await this.parse(Serve)
    this.notImplemented('engine serve', 'issue "Producer server"')
  }
}
