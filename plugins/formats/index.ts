import type {FormatPlugin} from '../../src/plugin/index.js'
import {gifFormat} from './gif.js'
import {hlsFormat} from './hls.js'
import {movFormat} from './mov.js'
import {mp4Format} from './mp4.js'
import {pngSequenceFormat} from './png-sequence.js'
import {webmFormat} from './webm.js'

export const BUILTIN_FORMAT_PLUGINS: readonly FormatPlugin[] = [mp4Format, movFormat, webmFormat, gifFormat, pngSequenceFormat, hlsFormat]
