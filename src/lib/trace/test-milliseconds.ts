/**
 * A duration the test suite shortens through an ENGINE_TEST_* variable (a retry wait, a poll
 * interval): the variable's whole milliseconds when it holds at least `min` of them, else
 * `fallback`, the product's value. Nothing outside the suite sets these variables.
 */
export function testMilliseconds(variable: string, fallback: number, min = 0): number {
  const wanted = process.env[variable]
  if (wanted === undefined || !/^\d+$/.test(wanted)) return fallback
  const value = Number(wanted)
  return value >= min ? value : fallback
}
