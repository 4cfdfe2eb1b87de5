export {
  DEFAULT_FRAME_TIMEOUT_MS,
  DEFAULT_READY_TIMEOUT_MS,
  openCaptureWorker,
  type CaptureWorker,
  type CaptureStats,
  type CaptureWorkerOptions,
  type FrameSink,
} from './capture-worker.js'
export {screenshotOptions} from './frame-capturer.js'
export {pageError} from './page-error.js'
export {loadRuntimeBundle, RUNTIME_BUNDLE_PATH} from './runtime-bundle.js'
