/** Warnings of one code sent one by one before the rest are only counted. */
export const WARNINGS_SENT_PER_CODE = 3

export interface WarningSummary {
  code: string
  message: string
  /** Every warning of the code, the ones sent included. */
  count: number
}

/**
 * Keeps one request's stream readable whatever the composition does: the first few warnings of
 * each code go out as they happen, later ones of the same code are counted and reported once, in
 * one summary per code, when the render ends (200,000 undeclared keys make one event, not 200,000).
 */
export class WarningCollapser {
  private readonly counts = new Map<string, number>()

  /** Counts a warning; true when it should be sent now. */
  accept(code: string): boolean {
    const count = (this.counts.get(code) ?? 0) + 1
    this.counts.set(code, count)
    return count <= WARNINGS_SENT_PER_CODE
  }

  /** One summary per code that had warnings held back. */
  summaries(): WarningSummary[] {
    return [...this.counts]
      .filter(([, count]) => count > WARNINGS_SENT_PER_CODE)
      .map(([code, count]) => ({
        code,
        count,
        message: `${count} "${code}" warnings in all; ${count - WARNINGS_SENT_PER_CODE} like the ones above were not sent one by one`,
      }))
  }
}
