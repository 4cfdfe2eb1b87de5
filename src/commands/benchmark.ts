import {Args, Flags} from '@oclif/core'
import {BaseCommand} from '../cli/base-command.js'
import {findSaveTarget, formatBenchmark, runBenchmark, saveToConfig} from '../lib/benchmark/index.js'
import {EngineError} from '../lib/errors/engine-error.js'
import {loadConfig} from '../lib/config/load-config.js'
import {projectConfigTrusted} from '../lib/config/project-trust.js'
import {trustProjectConfigFlag} from '../cli/project-config.js'

const DEFAULT_SECONDS = 2
const QUICK_SECONDS = 1

export default class Benchmark extends BaseCommand {
  static override summary = 'Find render settings suited to this machine'
  static override description = [
    'Renders a short clip for real (browser capture, encoding, assembly into a temporary directory) with 1 up to',
    'min(4, cores) workers and prints frames/s per configuration and the fastest setting; fewer workers win when',
    'within 5%. Uses the render options of the config file (format, fps, quality...). Without a composition it',
    'measures a built-in 1920x1080 reference; a longer composition is cut to --duration.',
  ].join(' ')
  static override examples = ['<%= config.bin %> benchmark --quick', '<%= config.bin %> benchmark index.html --duration 1 --save', '<%= config.bin %> benchmark --json --quick']
  static override args = {composition: Args.string({description: 'composition to measure (default: a built-in reference)'})}
  static override flags = {
    json: Flags.boolean({description: 'print {configurations:[{workers, captureMode, framesPerSecond, seconds}], recommendation} as JSON'}),
    save: Flags.boolean({description: 'write the recommended "workers" to the config file (engine.config.json in the working directory when there is none)'}),
    duration: Flags.string({description: `seconds rendered per configuration (default ${DEFAULT_SECONDS}; ${QUICK_SECONDS} with --quick)`}),
    quick: Flags.boolean({description: 'a rough answer fast: a 640x360 reference, 1 s, no warm-up render'}),
    ...trustProjectConfigFlag,
  }

  async run(): Promise<void> {
    const {args, flags} = await this.parse(Benchmark)
    const durationSeconds = flags.duration === undefined ? (flags.quick ? QUICK_SECONDS : DEFAULT_SECONDS) : parseSeconds(flags.duration)
    // Refuse an unwritable config before spending a minute measuring.
    const trusted = await projectConfigTrusted({flag: flags['trust-project-config'], userConfigDir: this.config.configDir})
    const saveTarget = flags.save ? await findSaveTarget(process.cwd(), trusted) : undefined
    const config = await loadConfig(process.cwd(), {trusted})
    const progress = (line: string) => {
      if (!flags.json) process.stderr.write(line + '\n')
    }
    const result = await runBenchmark({
      composition: args.composition,
      durationSeconds,
      quick: flags.quick,
      renderOptions: config.options,
      onConfiguration: (workers, index, count) => progress(`[${index + 1}/${count}] rendering with --workers ${workers}...`),
    })
    let saved: string | undefined
    if (saveTarget) {
      await saveToConfig(saveTarget, {workers: result.recommendation.workers})
      saved = saveTarget.path
    }
    if (flags.json) {
      process.stdout.write(JSON.stringify(saved ? {...result, saved} : result) + '\n')
      return
    }
    process.stdout.write(formatBenchmark(result))
    process.stdout.write(saved ? `saved "workers": ${result.recommendation.workers} to ${saved}\n` : 'run with --save to write it to the config file\n')
  }
}

function parseSeconds(text: string): number {
  const value = Number(text)
  if (!Number.isFinite(value) || value <= 0 || value > 60) {
    throw new EngineError('INVALID_FLAG', `--duration: "${text}" must be seconds, more than 0 and at most 60`, {flag: '--duration', value: text})
  }
  return value
}
