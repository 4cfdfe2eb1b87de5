export {checkCompositionAttributes, type CompositionAttributeProblem} from './check-composition-attributes.js'
export {parseColorGrading, type GradingReference, type ParsedColorGrading} from './color-grading-references.js'
export {compileComposition, type CompileOptions, type CompiledComposition} from './compile-composition.js'
export {extractCompositionMetadata, type CompositionMetadata} from './extract-composition-metadata.js'
export {
  findCompositionRoot,
  parseComposition,
  type ClipSource,
  type HostSource,
  type MediaSource,
  type NumberAttribute,
  type ParsedComposition,
} from './parse-composition.js'
export {parseVariableValues, type ParsedVariableValues} from './parse-variable-values.js'
export {resolveTiming, type ResolvedTiming, type TimingFinding, type TimingItem, type TimingResolution} from './resolve-timing.js'
