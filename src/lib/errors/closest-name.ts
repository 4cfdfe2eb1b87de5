import {distance} from 'fastest-levenshtein'

/** Letters to change to get from `word` to `candidate`, a swap of two neighbours counting as one. */
function cost(word: string, candidate: string): number {
  return Math.min(distance(word, candidate), swapped(word, candidate) ? 1 : Infinity)
}

/** Whether `candidate` is close enough to be what `word` meant: at most a third of its letters wrong (one for short words). */
function near(word: string, candidate: string): boolean {
  return cost(word, candidate) <= Math.max(1, Math.floor(word.length / 3))
}

/** The candidate a mistyped word most likely meant, or undefined when none is close. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: {candidate: string; cost: number} | undefined
  for (const candidate of candidates) {
    if (!near(word, candidate)) continue
    const value = cost(word, candidate)
    if (!best || value < best.cost) best = {candidate, cost: value}
  }
  return best?.candidate
}

/** `fsp` for `fps`: the same letters with two neighbours swapped. */
function swapped(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  const differ = [...a].flatMap((char, index) => (char === b[index] ? [] : [index]))
  return differ.length === 2 && differ[1] === differ[0] + 1 && a[differ[0]] === b[differ[1]] && a[differ[1]] === b[differ[0]]
}

/**
 * What a command line that names no command meant: its leading words (`rendr x.html` is the word
 * `rendr` and an argument, `lamda render` two words) matched word by word against the command ids
 * of as many words, longest first, the rest kept as arguments. Undefined when nothing is close.
 */
export function suggestCommand(words: readonly string[], commandIds: readonly string[]): {command: string[]; rest: string[]} | undefined {
  for (let count = Math.min(words.length, 3); count >= 1; count--) {
    const typed = words.slice(0, count)
    let best: {command: string[]; cost: number} | undefined
    for (const id of commandIds) {
      const command = id.split(':')
      if (command.length !== count || !command.every((word, index) => near(typed[index], word))) continue
      const total = command.reduce((sum, word, index) => sum + cost(typed[index], word), 0)
      if (total > 0 && (!best || total < best.cost)) best = {command, cost: total}
    }
    if (best) return {command: best.command, rest: words.slice(count)}
  }
  return undefined
}
