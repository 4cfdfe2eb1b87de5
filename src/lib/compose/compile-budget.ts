import {isTag, type AnyNode} from 'domhandler'
import {EngineError} from '../errors/engine-error.js'

/**
 * What compiling one composition may cost, whoever asks (CLI, server, Lambda, lint): a composition
 * is untrusted input, and one file must not be able to hold a process for minutes or exhaust its
 * memory. Real templates stay far below every figure.
 */
export interface CompileBudget {
  /** Elements of the page with every sub-composition inlined (each file checked before it is parsed, too). */
  maxElements: number
  /** Nesting depth of any element. Chromium's own HTML parser stops nesting at 512. */
  maxDepth: number
  /** Sub-composition instances inlined into one page. */
  maxInstances: number
  /** The root composition's `data-duration`, in seconds (24 h). */
  maxDurationSeconds: number
}

export const COMPILE_BUDGET: CompileBudget = {maxElements: 100_000, maxDepth: 512, maxInstances: 1_000, maxDurationSeconds: 86_400}

/** A start tag: `<` and a letter. Text and scripts can contain some too, so this only bounds the count from above. */
const START_TAG = /<[A-Za-z]/g

function overBudget(field: string, value: number, limit: number, message: string): EngineError {
  return new EngineError('LIMIT_EXCEEDED', message, {field, value, limit})
}

/**
 * Refuses a file with more start tags than the whole page may have elements, before parsing it:
 * parsing is the costliest step and cannot be interrupted.
 */
export function assertSourceWithinBudget(source: string, display: string, budget: CompileBudget = COMPILE_BUDGET): void {
  let tags = 0
  START_TAG.lastIndex = 0
  while (START_TAG.exec(source) !== null) {
    if (++tags > budget.maxElements) {
      throw overBudget('elements', tags, budget.maxElements, `${display}: more than ${budget.maxElements} elements; a composition may have at most ${budget.maxElements} (sub-compositions included)`)
    }
  }
}

/** Elements and the deepest nesting under `root`, walked without recursion (a deep tree would exhaust the stack). */
export function measureTree(root: AnyNode): {elements: number; depth: number} {
  let elements = 0
  let depth = 0
  const stack: [AnyNode, number][] = [[root, 0]]
  while (stack.length > 0) {
    const [node, level] = stack.pop()!
    const own = isTag(node) ? level + 1 : level
    if (isTag(node)) {
      elements++
      if (own > depth) depth = own
    }
    if ('children' in node) for (const child of node.children) stack.push([child, own])
  }
  return {elements, depth}
}

/** Throws LIMIT_EXCEEDED when a parsed tree nests deeper than the budget allows. */
export function assertDepthWithinBudget(depth: number, display: string, budget: CompileBudget = COMPILE_BUDGET): void {
  if (depth > budget.maxDepth) {
    throw overBudget('depth', depth, budget.maxDepth, `${display}: elements nested ${depth} deep; a composition may nest at most ${budget.maxDepth} deep (Chromium flattens anything deeper)`)
  }
}

/** Counts what the page holds so far, and throws LIMIT_EXCEEDED the moment it passes a budget. */
export class BudgetMeter {
  private elements = 0
  private instances = 0

  constructor(
    private readonly display: string,
    private readonly budget: CompileBudget = COMPILE_BUDGET,
  ) {}

  addElements(count: number): void {
    this.elements += count
    const {maxElements} = this.budget
    if (this.elements > maxElements) {
      throw overBudget('elements', this.elements, maxElements, `${this.display}: ${this.elements} elements with its sub-compositions inlined; a composition may have at most ${maxElements}`)
    }
  }

  addInstance(where: string): void {
    const {maxInstances} = this.budget
    if (++this.instances > maxInstances) {
      throw overBudget(
        'sub-composition instances',
        this.instances,
        maxInstances,
        `${this.display}: more than ${maxInstances} sub-composition instances (the next at ${where}); a composition may inline at most ${maxInstances}`,
      )
    }
  }
}

/** Throws LIMIT_EXCEEDED when the root composition is longer than any render may be. */
export function assertDurationWithinBudget(seconds: number, display: string, budget: CompileBudget = COMPILE_BUDGET): void {
  if (seconds > budget.maxDurationSeconds) {
    throw overBudget(
      'data-duration',
      seconds,
      budget.maxDurationSeconds,
      `${display}: data-duration="${seconds}" is longer than the ${budget.maxDurationSeconds} s (24 h) a composition may last; render a long piece in parts (--frames A-B)`,
    )
  }
}
