// The build replaces this module's output with one esbuild bundle of what it re-exports: loading
// puppeteer-core and @puppeteer/browsers as some 180 separate files cost every `engine` start
// more CPU than its work. The two share one bundle because puppeteer-core embeds the other.
// Every value import of either goes through here, so puppeteer's error classes stay one identity.
export {default, ProtocolError, TimeoutError} from 'puppeteer-core'
export {Browser, computeExecutablePath, detectBrowserPlatform, install} from '@puppeteer/browsers'
