import type {S3Client} from '@aws-sdk/client-s3'
import {resultSheetFormat} from 'html-video-engine/internal/lib/batch/results/result-sheet.js'
import {EngineError, isEngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {manifestRow} from '../actions/finish-batch-action.js'
import {createS3Client, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {BucketObjects} from '../s3-objects.js'
import {batchManifestKey, batchRecordKey, type BatchManifestFile, type BatchManifestRow, type BatchRecord} from './batch-records.js'
import {writeLambdaResults} from './batch-results.js'
import {rowRecords} from './batch-rows.js'

export interface RebuildLambdaResultsOptions extends AwsClientOptions {
  batchId: string
  bucketName: string
  /** A local .csv or .jsonl file; default: `results.csv` beside the manifest in the bucket again. */
  results?: string
  s3?: S3Client
}

/**
 * `engine lambda batch results <id>`: the batch's result sheet again, from the bucket alone: the
 * manifest of its latest run when it has one, else (a run still going, or stopped without its
 * Finish) the row records as they stand. Written with the same function Finish writes it with.
 */
export async function rebuildLambdaResults(options: RebuildLambdaResultsOptions): Promise<{results: string; rows: number}> {
  if (options.results !== undefined) resultSheetFormat(options.results)
  const bucket = new BucketObjects(options.s3 ?? createS3Client(options), options.bucketName)
  const failing = (error: unknown): never => {
    throw awsFailure(error, `rebuilding the result sheet of batch ${options.batchId}`, {bucketName: options.bucketName, endpoint: options.endpoint})
  }
  const [record, manifest] = await Promise.all([bucket.getJson<BatchRecord>(batchRecordKey(options.batchId)), bucket.getJson<BatchManifestFile>(batchManifestKey(options.batchId))]).catch(failing)
  if (!record) throw new EngineError('NOT_FOUND', `batch ${options.batchId}: no such batch in ${options.bucketName}; give the id render-batch printed`, {batchId: options.batchId})
  let rows: BatchManifestRow[]
  if (manifest && manifest.run === record.runs.at(-1)?.run) rows = manifest.rows
  else {
    rows = []
    for await (const row of rowRecords(bucket, options.batchId)) rows.push(manifestRow(row))
  }
  const results = await writeLambdaResults(bucket, options.batchId, rows, options.results).catch((error: unknown) => (isEngineError(error) ? Promise.reject(error) : failing(error)))
  return {results: options.results === undefined ? `s3://${options.bucketName}/${results}` : results, rows: rows.length}
}
