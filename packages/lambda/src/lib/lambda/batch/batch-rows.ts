import {mapLimited} from '../map-limited.js'
import type {BucketObjects} from '../s3-objects.js'
import {batchManifestKey, batchRecordKey, batchRowsPrefix, type BatchManifestFile, type BatchRecord, type BatchRowRecord} from './batch-records.js'

/** Row records read at once: S3 answers each in tens of milliseconds. */
const READ_CONCURRENCY = 32
/** Records fetched per group, so that memory holds a group, not the batch. */
const GROUP = 1000

/**
 * Every ended row of a batch, as the bucket says now: the manifest written when the latest run
 * ended when there is one, else the row records one by one (a run that was stopped writes no
 * manifest).
 */
export async function* readBatchRows(bucket: BucketObjects, batchId: string): AsyncGenerator<Pick<BatchRowRecord, 'index' | 'status'>> {
  const [record, manifest] = await Promise.all([bucket.getJson<BatchRecord>(batchRecordKey(batchId)), bucket.getJson<BatchManifestFile>(batchManifestKey(batchId))])
  if (record && manifest && manifest.run === record.runs.at(-1)?.run) {
    yield* manifest.rows
    return
  }
  yield* rowRecords(bucket, batchId)
}

/** The row records of a batch (`rows/<index>.json`), fetched a group at a time, in key order. */
export async function* rowRecords(bucket: BucketObjects, batchId: string): AsyncGenerator<BatchRowRecord> {
  const keys = await bucket.listKeys(batchRowsPrefix(batchId))
  for (let start = 0; start < keys.length; start += GROUP) {
    const rows = await mapLimited(keys.slice(start, start + GROUP), READ_CONCURRENCY, (key) => bucket.getJson<BatchRowRecord>(key))
    for (const row of rows) if (row) yield row
  }
}
