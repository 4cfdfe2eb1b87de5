export interface Companion {
  /** The command topic the package brings. */
  topic: string
  /** Its npm package. */
  name: string
  /** What its commands are, for the message when it is missing. */
  what: string
}

/**
 * First-party packages published beside engine that bring a command topic, kept out of the core
 * install for their size (an oclif plugin each; see packages/ in the repository). They bring
 * commands and no format or encoder hooks, so a bundle for another machine does not carry them;
 * the serverless one also provides the `s3://` batch output store (`engine:output-stores`).
 */
export const COMPANIONS: readonly Companion[] = [
  {topic: 'lambda', name: 'html-video-engine-lambda', what: 'the serverless commands: AWS Lambda + Step Functions and their local stack'},
]

export function isCompanion(packageName: string): boolean {
  return COMPANIONS.some((companion) => companion.name === packageName)
}
