import {FLAKY_RETRY, FUNCTION_TIMEOUT_SECONDS, THROTTLE_RETRY, type StateMachineDefinition} from '../state-machine-definition.js'
import {EXECUTION_TIMEOUT_SECONDS} from '../runtime/render-timeout.js'
import {batchRowsPrefix} from './batch-records.js'

/** The batch workflow beside the render workflow: `<render state machine>-batch`. */
export function batchStateMachineArnOf(renderStateMachineArn: string): string {
  return `${renderStateMachineArn}-batch`
}

/** State names: the local stack emulates the Distributed Map and routes the tasks by name. */
export const BATCH_STATES = {
  rows: 'Rows',
  renderRow: 'RenderRow',
  recordSuccess: 'RecordSuccess',
  recordFailure: 'RecordFailure',
  notifyRow: 'NotifyRow',
  notifyFailedRow: 'NotifyFailedRow',
  finish: 'Finish',
} as const

/**
 * Starting another workflow can be throttled (StartExecution's rate, the account's open
 * executions): wait and try again, as long as a render may take. A row that ran past its timeout
 * is not tried again: its render had all the time a render may have, and a new start under the
 * same execution name (the row's render id, which progress and cancel find it by) would only get
 * `ExecutionAlreadyExists` and hide why it ended.
 */
const START_RETRY = {
  ErrorEquals: ['StepFunctions.ExecutionLimitExceededException', 'StepFunctions.AWSStepFunctionsException', 'StepFunctions.SdkClientException'],
  IntervalSeconds: 2,
  MaxAttempts: 10,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
} as const

const RECORD_RETRY = {ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 5, BackoffRate: 2, JitterStrategy: 'FULL'} as const

/**
 * Task timeouts, as AWS has none unless a state sets one: a row waits for its render, whose own
 * execution ends by its TimeoutSeconds (EXECUTION_TIMEOUT_SECONDS), plus a few minutes for the
 * nested start and its end event to arrive; a row record is one small S3 write.
 */
export const BATCH_TASK_TIMEOUTS = {renderRow: EXECUTION_TIMEOUT_SECONDS + 300, record: 60, notify: 120, finish: FUNCTION_TIMEOUT_SECONDS} as const

/** On to `then` when the run's input says the batch has a webhook, else to `otherwise`. */
function webhookChoice(then: string, otherwise: string) {
  return {
    Type: 'Choice',
    Choices: [{And: [{Variable: '$.batch.webhook', IsPresent: true}, {Variable: '$.batch.webhook', BooleanEquals: true}], Next: then}],
    Default: otherwise,
  }
}

/**
 * The batch workflow: one Distributed Map over the run's rows, read from S3 (JSON Lines), that runs
 * each row as an execution of the render workflow and waits for it (`startExecution.sync:2`), at
 * most `maxConcurrent` rows at once: the cloud is the queue, so the batch goes on without its
 * client, and a throttled row waits for a slot instead of failing. Each row's end is written to
 * `rows/<index>.json`; a failed row fails its child workflow so that the Map counts it against
 * `toleratedFailurePercentage`. `Finish` writes the batch manifest whatever happened.
 */
export function batchStateMachineDefinition(renderStateMachineArn: string, functionArn: string): StateMachineDefinition {
  const rowRecord = (extra: Record<string, string>) => ({
    Type: 'Task',
    Resource: 'arn:aws:states:::aws-sdk:s3:putObject',
    Parameters: {
      'Bucket.$': '$.batch.bucketName',
      'Key.$': `States.Format('${batchRowsPrefix('{}')}{}.json', $.batch.batchId, $.item.index)`,
      ContentType: 'application/json',
      Body: {
        'index.$': '$.item.index',
        'run.$': '$.batch.run',
        'renderId.$': '$.item.renderId',
        'outputKey.$': '$.item.outputKey',
        ...extra,
      },
    },
    ResultPath: null,
    TimeoutSeconds: BATCH_TASK_TIMEOUTS.record,
    Retry: [RECORD_RETRY],
  })
  const notifyRow = (next: string) => ({
    Type: 'Task',
    Resource: functionArn,
    Parameters: {action: 'notifyRow', 'batchId.$': '$.batch.batchId', 'bucketName.$': '$.batch.bucketName', 'index.$': '$.item.index', 'data.$': '$.item.data'},
    ResultPath: null,
    TimeoutSeconds: BATCH_TASK_TIMEOUTS.notify,
    // A webhook never fails its row: the call's own retries are inside the task, and a task that
    // still fails (throttled, say) is tried again, then let go.
    Retry: [THROTTLE_RETRY, FLAKY_RETRY],
    Catch: [{ErrorEquals: ['States.ALL'], ResultPath: null, Next: next}],
    Next: next,
  })
  return {
    Comment: 'engine batch: every row of a run as a render, a bounded number at once, each row recorded as it ends',
    StartAt: BATCH_STATES.rows,
    States: {
      [BATCH_STATES.rows]: {
        Type: 'Map',
        Label: 'Rows',
        ItemReader: {
          Resource: 'arn:aws:states:::s3:getObject',
          ReaderConfig: {InputType: 'JSONL'},
          Parameters: {'Bucket.$': '$.bucketName', 'Key.$': '$.itemsKey'},
        },
        ItemSelector: {'item.$': '$$.Map.Item.Value', 'batch.$': '$'},
        MaxConcurrencyPath: '$.maxConcurrent',
        ToleratedFailurePercentagePath: '$.toleratedFailurePercentage',
        ItemProcessor: {
          ProcessorConfig: {Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD'},
          StartAt: BATCH_STATES.renderRow,
          States: {
            [BATCH_STATES.renderRow]: {
              Type: 'Task',
              Resource: 'arn:aws:states:::states:startExecution.sync:2',
              Parameters: {
                StateMachineArn: renderStateMachineArn,
                'Name.$': '$.item.renderId',
                Input: {
                  'renderId.$': '$.item.renderId',
                  'bucketName.$': '$.batch.bucketName',
                  'siteId.$': '$.batch.siteId',
                  'entry.$': '$.batch.entry',
                  'outputKey.$': '$.item.outputKey',
                  'config.$': '$.item.config',
                },
              },
              // The render's outcome (RenderOutcome: every field present), whichever way it ended well.
              ResultSelector: {'status.$': '$.Output.status', 'result.$': '$.Output'},
              ResultPath: '$.render',
              TimeoutSeconds: BATCH_TASK_TIMEOUTS.renderRow,
              Retry: [START_RETRY],
              Catch: [{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: BATCH_STATES.recordFailure}],
              Next: BATCH_STATES.recordSuccess,
            },
            [BATCH_STATES.recordSuccess]: {
              ...rowRecord({'status.$': '$.render.status', 'result.$': '$.render.result'}),
              Next: 'RowWebhook',
            },
            [BATCH_STATES.recordFailure]: {...rowRecord({status: 'failed', 'error.$': '$.failure.Error', 'cause.$': '$.failure.Cause'}), Next: 'FailedRowWebhook'},
            // A batch with a webhook calls it for each row as the row ends, from its record.
            RowWebhook: webhookChoice(BATCH_STATES.notifyRow, 'RowDone'),
            [BATCH_STATES.notifyRow]: notifyRow('RowDone'),
            // A row's child ends with an empty output ({}): the Map gathers every child's output.
            RowDone: {Type: 'Pass', Result: {}, End: true},
            FailedRowWebhook: webhookChoice(BATCH_STATES.notifyFailedRow, 'RowFailed'),
            [BATCH_STATES.notifyFailedRow]: notifyRow('RowFailed'),
            RowFailed: {Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause'},
          },
        },
        // The children's results go to S3, never into the Map's own result: gathered there, a few
        // thousand rows would pass the 256 KiB a state's data may have (States.DataLimitExceeded,
        // which no Catch handles). The Map's result is then only where they went.
        ResultWriter: {Resource: 'arn:aws:states:::s3:putObject', Parameters: {'Bucket.$': '$.bucketName', 'Prefix.$': '$.resultsPrefix'}},
        ResultPath: null,
        // Over the tolerated failures the Map stops; the manifest is still written.
        Catch: [{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: BATCH_STATES.finish}],
        Next: BATCH_STATES.finish,
      },
      [BATCH_STATES.finish]: {
        Type: 'Task',
        Resource: functionArn,
        Parameters: {action: 'finishBatch', 'batchId.$': '$.batchId', 'bucketName.$': '$.bucketName', 'run.$': '$.run', 'startedAt.$': '$$.Execution.StartTime'},
        // It writes the manifest from the row records: run again, it writes the same file.
        TimeoutSeconds: BATCH_TASK_TIMEOUTS.finish,
        Retry: [THROTTLE_RETRY, FLAKY_RETRY],
        End: true,
      },
    },
  }
}

/** What the batch workflow's execution starts with (`run` of `batchId`). */
export interface BatchExecutionInput {
  batchId: string
  run: number
  bucketName: string
  itemsKey: string
  /** Where the Map writes its children's results (ResultWriter). */
  resultsPrefix: string
  siteId: string
  entry: string
  maxConcurrent: number
  toleratedFailurePercentage: number
  /** The batch has a webhook: each row's end calls it (NotifyRow). */
  webhook: boolean
}
