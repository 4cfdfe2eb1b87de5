import {allStopped} from './all-stopped.js'

/**
 * `items.map(work)` with at most `limit` calls in flight, results in input order. After a failure
 * no new call starts, and the first error is thrown only once the calls in flight have ended:
 * callers clean up what the calls write into (a work directory, a multipart upload), and that must
 * not race a write still going on.
 */
export async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < items.length) {
      const index = next++
      try {
        results[index] = await work(items[index])
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await allStopped(Array.from({length: Math.min(limit, items.length)}, worker))
  return results
}
