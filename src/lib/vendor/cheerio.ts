// The build replaces this module's output with one esbuild bundle of what it re-exports: cheerio's
// entry also loads an HTTP client (undici, some 110 files) that `load` never uses.
export {load} from 'cheerio'
