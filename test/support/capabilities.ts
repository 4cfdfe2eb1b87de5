import type {TestContext} from 'vitest'

/** How a skip for a missing capability starts its note; the summary reporter lists it (and fails it under CI). */
export const CAPABILITY_NOTE = 'missing capability'

/** Set to 1 by .ci/run: scripts/setup.sh provides every capability, so a skip for a missing one fails the run. */
export const REQUIRE_CAPABILITIES_ENV = 'ENGINE_TEST_REQUIRE_CAPABILITIES'

/**
 * Skips the running test when this machine lacks `capability`, with a note naming it and what
 * provides it. Call it first in the test body: `skipWithout(context, 'old-ffmpeg', exists, '...')`.
 */
export function skipWithout(context: TestContext, capability: string, available: boolean, providedBy: string): void {
  context.skip(!available, `${CAPABILITY_NOTE} ${capability} (${providedBy})`)
}
