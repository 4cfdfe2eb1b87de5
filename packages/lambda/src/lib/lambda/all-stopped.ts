/**
 * Like Promise.all, but rejects (with the first error, in input order) only once every promise has
 * settled: callers clean up what the work writes into (a work directory, a multipart upload), and
 * that must not race a write still going on.
 */
export async function allStopped<T extends readonly unknown[]>(parts: {readonly [K in keyof T]: Promise<T[K]>}): Promise<T> {
  const settled = await Promise.allSettled(parts)
  const failed = settled.find((result) => result.status === 'rejected')
  if (failed) throw failed.reason
  return settled.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T
}
