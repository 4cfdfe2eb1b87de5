import {Flags} from '@oclif/core'

/** Chunk-planning flags shared by the serverless render commands. */
export const chunkTuningFlags = {
  'max-parallel-chunks': Flags.integer({description: 'chunks rendered at once (default 16)', min: 1}),
  'target-chunk-frames': Flags.integer({description: 'aim for chunks of this many frames (ignored with --chunk-size)', min: 1}),
  'chunk-size': Flags.integer({description: 'frames per chunk (default 240)', min: 1}),
}

export const lambdaSizeFlags = {
  width: Flags.integer({description: 'output width in pixels', min: 1}),
  height: Flags.integer({description: 'output height in pixels', min: 1}),
}
