import {Flags} from '@oclif/core'
import {BATCH_FORMATS, MAX_WORKERS, PROFILE_NAMES, VIDEO_FRAME_FORMATS} from '../lib/plan/render-options.js'
import {QUALITIES} from '../lib/plan/render-plan.js'
import {LOG_FLAGS} from './log.js'

/**
 * Flags of `engine render`. None carries a default here: a value the user did not type may come
 * from the config file, and the built-in defaults are applied after both (RENDER_DEFAULTS).
 */
export const renderFlags = {
  output: Flags.string({char: 'o', description: 'output file (png-sequence: a directory; batch: a template; `-`: standard output, once the file is complete). Default renders/<name>.<ext>'}),
  format: Flags.string({char: 'f', description: 'output format (default mp4); plugins add more, see `engine plugins`'}),
  fps: Flags.string({description: 'frames per second: an integer 1-240 or a rational such as 30000/1001 (default: the root\'s data-fps, else 30)'}),
  'gif-loop': Flags.integer({description: 'GIF loop count, 0-65535; 0 loops forever (default 0)'}),
  'captions-sidecar': Flags.boolean({description: 'also write the composition\'s captions (data-captions) beside the output as <output name>.vtt'}),
  'captions-track': Flags.boolean({description: 'also embed the composition\'s captions as a subtitle track: mov_text in mp4 and mov, WebVTT in webm'}),
  'hls-segment-seconds': Flags.string({description: 'HLS: seconds of video per media segment, 0.1-60 (default 6); also the keyframe interval unless --keyframe-interval is given'}),
  quality: Flags.string({description: 'encoder preset and capture quality (default standard)', options: [...QUALITIES]}),
  crf: Flags.integer({description: 'constant rate factor 0-51, overrides the preset; not with --video-bitrate'}),
  'video-bitrate': Flags.string({description: 'target bitrate such as 8M or 2500k; not with --crf'}),
  'keyframe-interval': Flags.string({
    description: 'seconds between keyframes (0.1-60; default a quarter of the render, 0.5-4 s); also the length of the segments workers and chunks share out',
  }),
  'video-frame-format': Flags.string({description: 'format for extracted source-video frames (default auto)', options: [...VIDEO_FRAME_FORMATS]}),
  workers: Flags.string({description: `parallel capture workers, 1-${MAX_WORKERS} or auto (cores - 2, at least 1)`}),
  'max-concurrent-renders': Flags.integer({description: 'simultaneous renders via the producer server, 1-10 (default 2)'}),
  batch: Flags.string({description: 'rows of variable values: .json (array, or {"rows": [...]}), .jsonl/.ndjson (one object per line), .csv/.tsv (header of variable ids), or - for standard input (JSON Lines)'}),
  'batch-format': Flags.string({description: 'how to read --batch, whatever its extension', options: [...BATCH_FORMATS]}),
  'batch-concurrency': Flags.string({description: 'rows rendered at once, or auto: one-worker rows on every idle core, bounded by free memory (default 1)'}),
  'batch-fail-fast': Flags.boolean({description: 'stop launching new rows after the first failure'}),
  'on-overflow': Flags.string({
    description: 'text that does not fit (clipped, outside the frame, over data-max-lines), found by the check pass before rendering: warn (render and record it; the default for --batch), fail the row or render, or skip the row. A single render is checked only with this flag',
    options: ['warn', 'fail', 'skip'],
  }),
  'check-only': Flags.boolean({description: 'run preflight and the text check pass on every row (or the one render) and render nothing; the manifest records each row\'s findings'}),
  resume: Flags.boolean({description: 'with --batch: render only the rows the existing manifest.json does not record as completed'}),
  restart: Flags.boolean({description: 'with --batch: render every row again over an earlier run\'s manifest.json (replaced); without --resume or --restart such a batch is refused', exclusive: ['resume']}),
  results: Flags.string({description: 'with --batch: the result sheet, one line per row (its columns, then status, output, sha256 …): a .csv or .jsonl file (default results.csv beside manifest.json)'}),
  variables: Flags.string({description: 'variable overrides as JSON object text'}),
  'variables-file': Flags.string({description: 'variable overrides from a JSON file (`-`: standard input)'}),
  'strict-variables': Flags.boolean({description: 'turn variable warnings into errors'}),
  'strict-fonts': Flags.boolean({description: 'a font that falls back (missing family or glyphs) or is drawn with a stand-in is an error before any frame is captured'}),
  strict: Flags.boolean({description: 'the composition exactly as written: --strict-variables, --strict-fonts, and a root without data-duration is an error instead of taking the length of its timelines'}),
  network: Flags.boolean({
    description: 'let the page load public http(s) URLs, fetched once through the download cache (default on); --no-network blocks them for a hermetic render',
    allowNo: true,
  }),
  'page-errors': Flags.string({
    options: ['fail', 'warn'],
    description: 'an uncaught error in the page: fail the render (default), or warn: report each as a page-error warning with its script location (and in a batch row\'s manifest warnings) and go on',
  }),
  cache: Flags.boolean({
    description: 'reuse an identical earlier render from the render cache and store this one there (default on; ENGINE_RENDER_CACHE=off turns it off everywhere); --no-cache renders and stores nothing',
    allowNo: true,
  }),
  'allow-private-network': Flags.boolean({
    description: 'let the page reach loopback and private addresses (local dev servers); only for compositions you trust',
  }),
  gpu: Flags.boolean({description: 'hardware video encoding (VideoToolbox, NVENC, AMF, VAAPI, QSV)'}),
  'browser-gpu': Flags.boolean({description: 'use the host GPU for browser capture (default on locally)', allowNo: true}),
  'browser-path': Flags.string({description: 'browser executable to capture with (env ENGINE_BROWSER_PATH)'}),
  hdr: Flags.boolean({description: 'force HDR output (mp4 only)'}),
  sdr: Flags.boolean({description: 'force SDR output even with HDR sources'}),
  docker: Flags.boolean({
    description: 'render in container mode: the engine-render image (pinned browser, fonts, ffmpeg) via docker or podman; built on first use, see `engine docker build`',
  }),
  profile: Flags.string({
    options: [...PROFILE_NAMES],
    description: 'render under a named profile without a container: deterministic (the container\'s browser build, flags, fonts and begin-frame capture; Linux with the pinned chromium-headless-shell)',
  }),
  poster: Flags.string({description: 'also write the frame on screen at this time (seconds) as <output>.poster.jpg, from the same capture'}),
  'poster-format': Flags.string({description: 'poster image format: jpeg (default), png or webp'}),
  frames: Flags.string({description: 'render only frames A-B of the composition (0-based, inclusive): A-B, A- (to the end) or N (one frame)'}),
  scale: Flags.string({description: 'device scale factor 0.1-16: output width·F x height·F, drawn at that density (crisp text, not an upscale)'}),
  quiet: Flags.boolean({char: 'q', description: 'less output'}),
  json: Flags.boolean({description: 'machine-readable progress events, one JSON object per line'}),
  server: Flags.string({description: 'render on a running producer server (engine serve) at this URL and download the result to --output; token from ENGINE_SERVER_TOKEN'}),
}

/** String flags whose value is a number when it reads as one (`workers` also takes `auto`); anything else reaches validation as typed. */
const asNumber = (text: string) => text.trim() !== '' && Number.isFinite(Number(text))
const NUMERIC_TEXT: Record<string, (text: string) => boolean> = {
  workers: (text) => /^\d+$/.test(text),
  batchConcurrency: (text) => /^\d+$/.test(text),
  keyframeInterval: asNumber,
  hlsSegmentSeconds: asNumber,
  poster: asNumber,
  scale: asNumber,
}

type RenderFlagValues = {[K in keyof typeof renderFlags]?: unknown}

/** Flags the user typed, as camelCase render options (untyped; validated by parseRenderOptions). */
export function renderFlagsToOptions(flags: RenderFlagValues): Record<string, unknown> {
  const options: Record<string, unknown> = {}
  for (const [flag, value] of Object.entries(flags)) {
    if (value === undefined || LOG_FLAGS.includes(flag)) continue
    const key = flag.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())
    options[key] = typeof value === 'string' && NUMERIC_TEXT[key]?.(value) ? Number(value) : value
  }
  return options
}
