/**
 * For tests that start processes (the CLI, browsers, ffmpeg, a server, a local stack): a bound
 * said where the test is, with room for a machine loaded ten times over (the 60 s default is for
 * tests that run in this process alone). Pass it as the options of the describe.
 */
export const PROCESSES = {timeout: 180_000}
