// Loaded with `node --import` into the child processes a plugin starts (hostPackageExecArgv).
import {registerHostPackage} from './host-package.js'

registerHostPackage()
