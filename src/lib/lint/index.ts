export {findBackgroundOnRoot, type BackgroundOnRoot} from './find-background-on-root.js'
export {LINT_CODES, type LintCode, type LintFinding, type LintSeverity} from './lint-codes.js'
export {lintComposition, type LintOptions} from './lint-composition.js'
export {formatLintReport, lintReport, type LintReport} from './lint-report.js'
