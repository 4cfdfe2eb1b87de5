/**
 * The `engine:output-stores` hook: gives the core the `s3://` output store, so that a local batch
 * can write its rows to S3 without the core depending on the AWS SDK (loaded only when asked).
 */
export default async function outputStores(): Promise<unknown[]> {
  const {s3OutputStore} = await import('../lib/lambda/s3-output-store.js')
  return [s3OutputStore()]
}
