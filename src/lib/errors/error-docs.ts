import type {ErrorCode} from './engine-error.js'

/** What an error code means to the person who meets it: when it happens, and what to do. */
export interface ErrorDoc {
  /** The situations that raise it. */
  cause: string
  /** What to change so that it does not happen again. */
  fix: string
}

/**
 * Cause and fix of every error code, kept beside the codes so that a new code cannot ship
 * undocumented (the type demands an entry); docs/reference/errors.md is generated from it.
 */
export const ERROR_DOCS: Readonly<Record<ErrorCode, ErrorDoc>> = {
  INVALID_FLAG: {
    cause: 'A flag or SDK option has a value outside its type or range, two flags that exclude each other were given (`--crf` with `--video-bitrate`, `--hdr` with `--sdr` or `--gpu`), or a value does not fit the composition (a `--frames` range or `--poster` time past the end, a `--scale` that gives an odd mp4 size).',
    fix: 'Read the message: it names the flag, the value and what is accepted. `engine <command> --help` lists every flag with its range.',
  },
  INVALID_CONFIG: {
    cause: 'A config file (`engine.config.json`, `.enginerc`, the `engine` key of `package.json`…) has an unknown key or an invalid value, is JavaScript in a project you have not trusted, sets a trusted-only key (`browserPath`, `allowPrivateNetwork`), names a file outside its own folder or a dot-file in an untrusted project (`output`, `batch`, `variablesFile`), or an environment variable such as `ENGINE_DOWNLOAD_CACHE_MAX` or `ENGINE_HOST_RESOLVER_RULES` cannot be read.',
    fix: 'Fix the key the message names (its file and key are given); give a path outside the project with the flag yourself, or trust the project (`--trust-project-config`). An invalid config stops every command that reads it, even when a flag overrides the key. See docs/reference/configuration.md.',
  },
  INVALID_VARIABLES: {
    cause: '`--variables` is not valid JSON or not a JSON object, or `--variables-file` cannot be read.',
    fix: 'Pass one JSON object, such as `--variables \'{"title": "Hello"}\'` (single quotes around it in a POSIX shell).',
  },
  STRICT_VARIABLES: {
    cause: 'With `--strict-variables` (or `--strict`), a value names an undeclared variable, has another type than its declaration, or is not among an enum\'s options; or the declarations themselves are not a JSON array.',
    fix: 'Correct the values (the message lists each problem), fix the declaration, or drop `--strict-variables` to render with warnings.',
  },
  COMPOSITION_NOT_FOUND: {
    cause: 'The composition file does not exist (for `engine serve`, under its `--root`).',
    fix: 'Check the path; relative paths are resolved against the working directory (or the server root).',
  },
  COMPOSITION_INVALID: {
    cause: 'The composition cannot be compiled: the root lacks `data-composition-id`, `data-width`, `data-height` or `data-duration` (with `--strict`), a `data-start` names an unknown id or forms a cycle, a sub-composition file is missing, or the page is over a limit.',
    fix: 'Run `engine lint <composition>` for every finding with its line, and fix the attributes it names. docs/guides/compositions.md describes the contract.',
  },
  BROWSER_NOT_FOUND: {
    cause: 'No usable browser: none on this machine and the download was not allowed (a script or CI without `--yes`), `--browser-path` / `ENGINE_BROWSER_PATH` is not an executable file, the pinned browser is not built for this platform, or a Lambda bundle lacks its Chromium.',
    fix: 'Render with `--yes` (or `ENGINE_AUTO_INSTALL=1`) or run `engine doctor --fix` to download the pinned browser; or `apt-get install chromium-headless-shell`, or point `--browser-path` at one. `engine doctor` shows what was looked for.',
  },
  BROWSER_FAILED: {
    cause: 'The browser started but crashed, did not answer, or returned no image for a frame (often too little memory for the number of workers).',
    fix: 'Lower `--workers` (each worker is a browser of about 256 MB), free memory, and run `engine doctor`.',
  },
  PAGE_ERROR: {
    cause: "The composition's own script threw an uncaught error while loading or while seeking a frame.",
    fix: 'The message names the error and its file and line; `engine preview` lists uncaught errors under the player while you fix it.',
  },
  PAGE_TIMEOUT: {
    cause: 'The page was not ready in time: a font, image or media element never finished loading, or a script kept the page busy.',
    fix: 'The message names what it was still waiting for; fix that resource or script.',
  },
  TEXT_OVERFLOW: {
    cause: 'With `--on-overflow fail`, the check pass found text that does not fit before the render: text cut off by a box that clips it (`overflow: hidden`, an ellipsis, `line-clamp`), text partly outside the frame, or more lines than `data-max-lines`.',
    fix: 'The message names the element, the variable it shows, the time and the pixels: shorten the value, give the element more room, or let it shrink with `data-fit="shrink"` (see docs/guides/compositions/text-fit.md). `--on-overflow warn` renders it anyway and records the finding.',
  },
  FFMPEG_NOT_FOUND: {
    cause: 'ffmpeg or ffprobe cannot be started, or none is on this machine and the download was not allowed (a script or CI without `--yes`).',
    fix: 'Render with `--yes` (or `ENGINE_AUTO_INSTALL=1`) or run `engine doctor --fix` to download a static build where npm has one; or install ffmpeg (`apt-get install -y ffmpeg`, `brew install ffmpeg`) or set `ENGINE_FFMPEG_PATH` / `ENGINE_FFPROBE_PATH`; `engine doctor` shows which one was found.',
  },
  ENCODE_FAILED: {
    cause: 'ffmpeg exited with an error while encoding or joining (an encoder missing from this ffmpeg build, or an output that cannot be written).',
    fix: "The message ends with ffmpeg's own last lines; `engine doctor` checks the encoders each format needs.",
  },
  GPU_ENCODER_UNAVAILABLE: {
    cause: '`--gpu` was given but no hardware H.264 encoder works on this machine.',
    fix: 'Render without `--gpu` (libx264), or install the GPU driver and an ffmpeg built with its encoder.',
  },
  MEDIA_NOT_FOUND: {
    cause: 'A `<video>` or `<audio>` source names a file that does not exist in the project.',
    fix: 'Fix its `src`: relative paths are resolved against the composition file, inside its project.',
  },
  MEDIA_FAILED: {
    cause: 'A media source cannot be probed, has no known length, could not be downloaded, or its extracted frames differ from what the plan expects.',
    fix: 'Check the file plays (`ffprobe <file>`); for URLs, check they answer within 30 s; give the clip a `data-duration` when the source has none.',
  },
  REQUEST_BLOCKED: {
    cause: 'The page asked for something the sandbox refuses: a dot-file (`.env`, `.git/`), a path outside the project, a loopback or private address, or any URL under `--no-network`.',
    fix: 'Keep assets inside the project; use `--allow-private-network` only for a composition you trust; see docs/explanation/sandbox.md.',
  },
  DOWNLOAD_FAILED: {
    cause: 'A public URL the page loads could not be downloaded (no answer within 30 s, too many redirects, over the size cap, an HTTP error); or a static ffmpeg/ffprobe from the npm registry failed (unreachable, missing version, hash mismatch); or the pinned ffmpeg 7.0.2 archive (`engine ffmpeg install`, `lambda bundle`) was unreachable, did not match its sha256, or held entries outside its folder or links (refused whole; nothing is installed).',
    fix: 'Check the URL; host large media yourself or put it in the project. For ffmpeg: check ENGINE_NPM_REGISTRY (or your npm registry) and the connection, or install ffmpeg with the system package manager; for the pinned build, serve the archive from a folder named in ENGINE_FFMPEG_MIRROR, or download it yourself and pass `--ffmpeg`/`--ffprobe` to `lambda bundle`.',
  },
  BATCH_PREFLIGHT: {
    cause: 'A batch was refused before any row rendered: a malformed row, a placeholder a row cannot fill, two rows writing the same file, a strict-variables mismatch, or a `--resume` manifest made from other inputs.',
    fix: 'The message lists every row and field at fault; fix the rows or the `--output` template. For `--resume`, rerun with the inputs the manifest was written for, or remove the manifest.',
  },
  BATCH_CELL_TOO_LARGE: {
    cause: 'A cell of the batch file (one value of a row) has more than 1,000,000 characters.',
    fix: 'Keep media and long documents out of the rows: name them by URL or path and let the composition load them.',
  },
  BATCH_LINE_TOO_LONG: {
    cause: 'A line of a CSV, TSV or JSON Lines batch file, or one row of a .json file, is larger than 4 MiB; it is refused as soon as the limit is crossed, without reading the rest.',
    fix: 'Split the data over rows, or name large values by URL or path instead of inlining them.',
  },
  BATCH_TOO_MANY_COLUMNS: {
    cause: 'The header of the batch file, or a row, has more than 1,000 columns (keys).',
    fix: 'Keep the columns the composition declares as variables (and the output fields); drop the others.',
  },
  BATCH_EXISTS: {
    cause: 'A batch was started into an output folder whose `manifest.json` belongs to an earlier run, without `--resume` or `--restart`: running it would silently render every row again and replace that record. The command exits with status 2.',
    fix: 'Add `--resume` to render only the rows the manifest does not record as completed, or `--restart` to render every row again (the manifest is replaced); or give `--output` another folder.',
  },
  BATCH_ROW_FAILED: {
    cause: 'A batch finished with one or more failed rows (each row\'s own error is in `manifest.json`).',
    fix: 'Read the failed rows in the manifest, fix them, and run the same command with `--resume`.',
  },
  BATCH_MERGE: {
    cause: '`engine batch merge` found a shard of the batch missing (no `manifest.shard-I-of-N.json`), unfinished (its worker is still running or was stopped), rendered from other inputs than the others, or shard manifests of two different shard counts in one folder. Nothing was written.',
    fix: 'The message names each shard and why. Run a missing shard with `--shard I/N`, an unfinished one again with `--resume`, or wait for its worker; remove the manifests of an earlier run with another shard count.',
  },
  CANCELLED: {
    cause: 'The render was cancelled: Ctrl-C, `DELETE /render/:requestId`, a server client that disconnected from `POST /still` or from a stream it opened with `"cancelOnDisconnect": true`, or `engine lambda cancel`.',
    fix: 'Nothing to fix; render again when needed.',
  },
  TIMED_OUT: {
    cause: 'A serverless render ran past its deadline: its `--timeout` (SDK `config.timeoutSeconds`), or by default the longest its chunk plan can legitimately take; or its workflow execution reached the state machine\'s own timeout. Its running chunks stop and its scratch is deleted; its failure record and webhook carry this code.',
    fix: 'Give the render a longer `--timeout`, or more, smaller chunks (`--chunk-size`, `--max-parallel-chunks`) so that it finishes sooner; `engine lambda progress` shows how far it got.',
  },
  ABORTED: {
    cause: 'A serverless render\'s workflow execution was stopped from outside engine (the Step Functions console, the API, a stopped batch) rather than with `engine lambda cancel`. Its running chunks stop and its scratch is deleted; its failure record and webhook carry this code.',
    fix: 'Render again when needed; stop renders with `engine lambda cancel`, which records the cancel as CANCELLED.',
  },
  INVALID_REQUEST: {
    cause: 'A request to `engine serve` (or a serverless operation) is malformed: an unknown field, a value of the wrong type, neither or both of `composition` and `html`, or an operation that does not apply (cancelling a render that already ended).',
    fix: 'The message names the field; see docs/reference/http-api.md for what each body accepts.',
  },
  UNAUTHORIZED: {
    cause: 'The server requires a bearer token and none or a wrong one was sent, or the AWS credentials in use may not perform the operation.',
    fix: 'Send `Authorization: Bearer <token>` (the `--token` / `ENGINE_SERVER_TOKEN` of the server); for AWS, configure credentials with the policy `engine lambda policies` prints.',
  },
  CAPTIONS_INVALID: {
    cause: 'A caption file (`data-captions`) or caption variable (`data-captions-var`) is not valid WebVTT or SubRip: a cue timing that does not parse, a cue that ends before it starts, a missing `WEBVTT` line, or more cues or bytes than the limits. The message names the file and the line.',
    fix: 'Correct the named line (validate a WebVTT file with any WebVTT validator), or point the attribute or variable at another file.',
  },
  PATH_OUTSIDE_ROOT: {
    cause: 'A requested composition or file lies outside the directory the server or preview serves (symlinks resolved).',
    fix: "Give a path relative to the server's `--root`, or start the server with another `--root`.",
  },
  NOT_FOUND: {
    cause: 'An unknown render, route, output file, poster, site or batch id.',
    fix: 'Check the id (`engine lambda renders ls`, `engine lambda sites ls`); finished server outputs are kept only for the newest `--keep-outputs` renders.',
  },
  OUTPUT_NOT_READY: {
    cause: 'The output of a render was requested before the render finished.',
    fix: 'Download it after the `complete` event.',
  },
  PAYLOAD_TOO_LARGE: {
    cause: 'A request body is over 5 MB, or a serverless render input is over the 262,144 bytes Step Functions accepts.',
    fix: 'Pass media as URLs or project files instead of inlining it.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    cause: 'A request body was not sent as `Content-Type: application/json`.',
    fix: 'Send JSON with that header (this is what keeps HTML forms from starting renders).',
  },
  MISDIRECTED_REQUEST: {
    cause: "The request's `Host` header does not name the server (a DNS-rebinding page, or a reverse proxy forwarding its own name).",
    fix: 'Address the server by its own address, or start it with `--allowed-host <name>`.',
  },
  ORIGIN_NOT_ALLOWED: {
    cause: 'A web page (a request carrying `Origin`) called a server that does not allow that origin.',
    fix: 'Start the server with `--allow-origin <origin>` for your web app; non-browser clients send no Origin.',
  },
  LIMIT_EXCEEDED: {
    cause: 'A composition or request is over a limit: more than 100,000 elements, nesting deeper than 512, 1,000 sub-composition instances, a root longer than 86,400 s, more than 1,000 variables in a request, or a server\'s `--max-duration` / `--max-pixels`, compile time or compile memory.',
    fix: 'The details name the field, the value and the limit; make the composition smaller or, on your own server, raise the limit.',
  },
  SERVER_RESPONSE_INVALID: {
    cause: '`engine render --server` received something it does not trust: an output URL on another origin, or a download whose size or frame count differs from what the server announced.',
    fix: 'Render again; nothing was kept at `--output`. If it repeats, check what sits between you and the server.',
  },
  INVALID_STORAGE_KEY: {
    cause: 'An `--output-key` or batch `outputKey` is not a relative path of names separated by `/`, or it falls among the stack\'s own objects (`engine-stack.json`, `renders/`, `sites/`, `scratch/`, `batches/`, `cache/`).',
    fix: 'Use a key such as `out/video.mp4`: no leading `/`, no `..`, no empty parts, outside the reserved prefixes.',
  },
  OUTPUT_EXISTS: {
    cause: 'A serverless render or still was asked to write to a storage key that already holds an object (another render\'s output).',
    fix: 'Choose another `--output-key`, or pass `--overwrite` (`config.overwrite: true`) to replace it.',
  },
  OUTPUT_NOT_WRITABLE: {
    cause: 'The folder of `--output` cannot be created or written to.',
    fix: 'Choose a folder you can write to, or fix its permissions.',
  },
  NO_SPACE: {
    cause: 'The disk filled up while writing the output or a temporary file.',
    fix: 'Free space on that disk, or choose another `--output` (temporary files go to `TMPDIR`).',
  },
  QUEUE_FULL: {
    cause: "The server's queue already holds `--max-queue` waiting renders.",
    fix: 'Retry when a render has finished (HTTP 429), or raise `--max-queue`.',
  },
  SERVER_UNAVAILABLE: {
    cause: '`engine render --server` could not reach the producer server, or it answered with an error status.',
    fix: 'Start it with `engine serve`, check the URL given to `--server`, and the token in `ENGINE_SERVER_TOKEN`.',
  },
  PROFILE_UNAVAILABLE: {
    cause: "`--profile deterministic` needs a headless shell with begin-frame capture (the serverless function's Chromium build, else the profile's Debian build) and the profile's fonts, which this machine does not have or cannot run.",
    fix: 'Get the function\'s build with `engine browser install --function`, install the packages the message names, or render with `--docker`.',
  },
  CONTAINER_UNAVAILABLE: {
    cause: '`--docker` or `engine docker build` found neither docker nor podman, or its engine is not running.',
    fix: 'Install or start Docker or podman (`ENGINE_CONTAINER_RUNTIME=podman` to choose); `engine doctor` shows what was found.',
  },
  CONTAINER_FAILED: {
    cause: 'The render container or the image build failed.',
    fix: "The message carries the container's own output; rebuild the image with `engine docker build`.",
  },
  BUNDLE_FAILED: {
    cause: 'The Lambda bundle could not be built: a part for `--arch` is missing (`@sparticuz/chromium` carries x86_64 only; arm64 needs a Chromium pack and arm64 ffmpeg/ffprobe), an optional package is not installed, a binary is built for another architecture, or ffmpeg lacks an encoder.',
    fix: 'The message names the part and the fix: `--chromium-pack <file>` with the exact download, `--ffmpeg`/`--ffprobe` with a static build, or the optional dependencies (`bash scripts/setup.sh` in a checkout). See docs/guides/serverless-local.md.',
  },
  BUNDLE_TOO_LARGE: {
    cause: "The Lambda bundle would be over the 248 MiB this engine allows (Lambda's limit is 250 MiB unzipped).",
    fix: 'The message lists the largest parts; remove plugins or fonts you do not need.',
  },
  DEPLOY_FAILED: {
    cause: '`engine lambda deploy` stopped partway: AWS refused a step (e.g. --memory above the account\'s cap), or the code Lambda took is not the bundle deployed (its object under deploy/ was replaced).',
    fix: 'The message names the step, what this deploy created or changed, and the fix; deploy again to finish (it reuses what exists). See docs/guides/serverless-aws.md.',
  },
  FONT_FAILED: {
    cause: 'A font file cannot be read or is not a font (woff2, woff, TrueType or OpenType).',
    fix: 'Reinstall the package that holds it, or fix the `@font-face` source; `engine fonts resolve <composition>` shows where each family comes from.',
  },
  FONT_MISSING: {
    cause: 'With `--strict-fonts` (or `--strict`), a family nobody serves, characters its faces lack, or a family drawn with a stand-in.',
    fix: 'Add the font to the project (`@font-face`) or to the font cache (`engine fonts add`), or drop `--strict-fonts`; see docs/guides/fonts.md.',
  },
  PLUGIN_FAILED: {
    cause: "An installed or linked plugin's code threw while it ran (a format's `assemble`, `segmentArgs`…): the message names the plugin, the method and the first line of the plugin's files in the stack.",
    fix: 'Report it to the plugin\'s author, update or remove the plugin (`engine plugins uninstall <name>`, or `unlink`), or run without plugins (`ENGINE_NO_PLUGINS=1`); see docs/guides/plugins.md.',
  },
  UNKNOWN_COMMAND: {
    cause: 'The command line names no engine command (a mistyped word, or a command of a plugin that is not installed: `engine lambda …` needs the companion package html-video-engine-lambda); exit status 127.',
    fix: 'Use the command the message suggests (for `engine lambda`: `engine plugins install ./html-video-engine-lambda-<version>.tgz`, the tarball made by `npm pack -w packages/lambda` in a checkout, or `engine plugins link <checkout>/packages/lambda --no-install`), or see `engine help` for the list.',
  },
  INTERNAL: {
    cause: 'An unexpected failure inside engine (a bug, or an error from a library or the operating system that engine has no code for).',
    fix: 'Run again with the same input; if it repeats, report it with the message and `engine doctor --json`.',
  },
}
