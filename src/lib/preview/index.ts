export {startPreviewServer, type PreviewServer, type PreviewServerOptions} from './preview-server.js'
export {openCommand, openInBrowser} from './open-in-browser.js'
export type {ChangeEvent, PreviewState} from './client/preview-protocol.js'
