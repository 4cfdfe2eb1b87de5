import {warn} from '../log.js'

export interface PluginProblem {
  plugin: string
  message: string
}

const problems: PluginProblem[] = []

/** Warns (one line, the stack at debug level) and keeps the problem for `engine doctor`. */
export function reportPluginProblem(problem: {plugin: string; message: string; detail?: string}): void {
  problems.push({plugin: problem.plugin, message: problem.message})
  warn(problem.message, problem.detail)
}

/** Every plugin problem this process has met so far. */
export function pluginProblems(): readonly PluginProblem[] {
  return problems
}
