// The build replaces this module's output with one esbuild bundle of postcss (40 files otherwise).
export {default} from 'postcss'
