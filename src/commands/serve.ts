import {Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {stopOnSignal} from '../cli/stop-on-signal.js'
import {
  DEFAULT_HOST,
  DEFAULT_KEEP_OUTPUTS,
  DEFAULT_PORT,
  MAX_CONCURRENT_RENDERS_ENV,
  resolveServerSettings,
  TOKEN_ENV,
  WEBHOOK_SECRET_ENV,
} from '../lib/server/server-settings.js'
import {DEFAULT_RENDER_LIMITS} from '../lib/plan/render-limits.js'
import {startServer} from '../lib/server/start-server.js'
import {startupWarnings} from '../lib/server/startup-warnings.js'

export default class Serve extends BaseCommand {
  static override summary = 'Start the producer server: a FIFO render queue with server-sent events'
  static override description =
    'Endpoints: GET /health, GET /render/queue, POST /render/stream (JSON body, answered with server-sent events), POST /still (JSON body, answered with one image), ' +
    'GET /render/:requestId (status), GET /render/:requestId/events (resume after Last-Event-ID), ' +
    'GET /render/:requestId/output (and /output/:file of a png-sequence), GET /render/:requestId/poster, DELETE /render/:requestId. ' +
    'Bodies, events and statuses: docs/reference/http-api.md.'
  static override examples = [
    '<%= config.bin %> serve --port 9847 --max-concurrent-renders 2',
    '<%= config.bin %> serve --port 0 --json  # the first line says which port: {"type":"listening","url":…}',
    `${TOKEN_ENV}=$(openssl rand -hex 24) <%= config.bin %> serve --host 0.0.0.0 --root ./compositions`,
  ]
  static override flags = {
    json: Flags.boolean({description: 'log one JSON object a line: {type: listening|log|stopping, time, message, …}; the listening one carries url, root and limits'}),
    port: Flags.integer({description: `port to listen on (default ${DEFAULT_PORT}; 0 picks a free one)`}),
    host: Flags.string({description: `address to bind (default ${DEFAULT_HOST}); any non-loopback address requires --token`}),
    root: Flags.string({description: 'directory compositions are served from (default: working directory)'}),
    'max-concurrent-renders': Flags.integer({description: `renders run at once, 1-10 (default 2; env ${MAX_CONCURRENT_RENDERS_ENV})`}),
    'max-queue': Flags.integer({description: 'reject requests with 429 when this many are already waiting (default: unlimited)'}),
    token: Flags.string({description: `bearer token clients must send; required for a non-loopback --host (env ${TOKEN_ENV})`}),
    'output-dir': Flags.string({description: 'directory for render outputs (default: a temporary directory removed on exit)'}),
    'keep-outputs': Flags.integer({description: `finished outputs kept for download; older ones are deleted (default ${DEFAULT_KEEP_OUTPUTS})`}),
    'allowed-host': Flags.string({
      multiple: true,
      description: 'another name clients may use in the Host header, e.g. render.example.com (repeatable); anything else but the bound address is refused with 421',
    }),
    'allow-origin': Flags.string({
      multiple: true,
      description: 'origin of a web page allowed to call the server, e.g. https://app.example.com (repeatable); requests from any other page are refused with 403',
    }),
    'max-duration': Flags.string({description: `seconds of video one request may render (default ${DEFAULT_RENDER_LIMITS.maxDurationSeconds})`}),
    'max-pixels': Flags.string({description: 'pixels per frame one request may render, as a count or WIDTHxHEIGHT (default 3840x2160)'}),
    'max-workers': Flags.integer({description: 'capture workers one render may use, 1-24; requests asking for more are capped (default: CPU cores minus 2)'}),
    'webhook-secret': Flags.string({description: `signs the webhooks requests ask for ("webhook": {"url": ...}); without it such requests are refused (env ${WEBHOOK_SECRET_ENV})`}),
    'allow-webhook-host': Flags.string({
      description: 'a host name or address webhooks may call although it is loopback or private (repeatable); by default only public addresses are called',
      multiple: true,
    }),
    network: Flags.boolean({
      description: 'compositions may load public http(s) URLs, through the download cache (default on); --no-network blocks them. Loopback and private addresses are always blocked',
      allowNo: true,
    }),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(Serve)
    const settings = await resolveServerSettings(
      {
        port: flags.port,
        host: flags.host,
        root: flags.root,
        maxConcurrentRenders: flags['max-concurrent-renders'],
        maxQueue: flags['max-queue'],
        token: flags.token,
        outputDir: flags['output-dir'],
        keepOutputs: flags['keep-outputs'],
        allowedHosts: flags['allowed-host'],
        allowOrigins: flags['allow-origin'],
        maxDuration: flags['max-duration'],
        maxPixels: flags['max-pixels'],
        maxWorkers: flags['max-workers'],
        webhookSecret: flags['webhook-secret'],
        allowWebhookHosts: flags['allow-webhook-host'],
        network: flags.network,
      },
      process.env,
    )
    for (const warning of startupWarnings()) this.warn(warning)
    // --json: one object a line, for a supervisor that reads the port and follows the log.
    const say = (event: 'listening' | 'log' | 'stopping', message: string, fields: Record<string, unknown> = {}) =>
      this.log(flags.json ? JSON.stringify({type: event, time: new Date().toISOString(), message, ...fields}) : event === 'log' ? `${new Date().toISOString()} ${message}` : message)
    const server = await startServer(settings, {log: (line) => say('log', line)})
    const stopped = stopOnSignal(async (signal) => {
      say('stopping', `${signal}: cancelling renders and shutting down`, {signal})
      await server.close()
    })
    say(
      'listening',
      `engine serve listening on ${server.url} (root ${settings.root}, ${settings.maxConcurrentRenders} concurrent render(s)${settings.network ? '' : ', no network'}${settings.token ? ', token required' : ''}, outputs in ${server.service.outputs.dir})`,
      {url: server.url, root: settings.root, maxConcurrentRenders: settings.maxConcurrentRenders, network: settings.network, tokenRequired: Boolean(settings.token), outputDir: server.service.outputs.dir},
    )
    // Ctrl-C exits 130 as an interrupted command does; SIGTERM is the ordered shutdown of a service: 0.
    if ((await stopped) === 'SIGINT') process.exitCode = 130
  }
}
