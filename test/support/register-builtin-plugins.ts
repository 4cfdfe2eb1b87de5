// Tests import engine modules directly, not through a package entry: register the built-in
// formats and GPU encoders the way the entries do.
import '../../src/lib/builtin-plugins.js'
