import {FLAKY_RETRY, THROTTLE_RETRY, type StateMachineDefinition} from '../state-machine-definition.js'
import {batchRowsPrefix} from './batch-records.js'

/** The batch workflow beside the render workflow: `<render state machine>-batch`. */
export function batchStateMachineArnOf(renderStateMachineArn: string): string {
  return `${renderStateMachineArn}-batch`
}

/** State names: the local stack emulates the Distributed Map and routes the tasks by name. */
export const BATCH_STATES = {rows: 'Rows', renderRow: 'RenderRow', recordSuccess: 'RecordSuccess', recordFailure: 'RecordFailure', finish: 'Finish'} as const

/**
 * Starting another workflow can be throttled (StartExecution's rate, the account's open
 * executions): wait and try again, as long as a render may take.
 */
const START_RETRY = {
  ErrorEquals: ['StepFunctions.ExecutionLimitExceededException', 'StepFunctions.AWSStepFunctionsException', 'StepFunctions.SdkClientException', 'States.Timeout'],
  IntervalSeconds: 2,
  MaxAttempts: 10,
  BackoffRate: 2,
  MaxDelaySeconds: 60,
  JitterStrategy: 'FULL',
} as const

const RECORD_RETRY = {ErrorEquals: ['States.ALL'], IntervalSeconds: 1, MaxAttempts: 5, BackoffRate: 2, JitterStrategy: 'FULL'} as const

/**
 * The batch workflow: one Distributed Map over the run's rows, read from S3 (JSON Lines), that runs
 * each row as an execution of the render workflow and waits for it (`startExecution.sync:2`), at
 * most `maxConcurrent` rows at once: the cloud is the queue, so the batch goes on without its
 * client, and a throttled row waits for a slot instead of failing. Each row's end is written to
 * `rows/<index>.json`; a failed row fails its child workflow so that the Map counts it against
 * `toleratedFailurePercentage`. `Finish` writes the batch manifest whatever happened.
 */
export function batchStateMachineDefinition(renderStateMachineArn: string, functionArn: string): StateMachineDefinition {
  const rowRecord = (status: 'succeeded' | 'failed', extra: Record<string, string>) => ({
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
        status,
        ...extra,
      },
    },
    ResultPath: null,
    Retry: [RECORD_RETRY],
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
              ResultSelector: {'bytes.$': '$.Output.bytes', 'totalFrames.$': '$.Output.totalFrames'},
              ResultPath: '$.render',
              Retry: [START_RETRY],
              Catch: [{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: BATCH_STATES.recordFailure}],
              Next: BATCH_STATES.recordSuccess,
            },
            [BATCH_STATES.recordSuccess]: {...rowRecord('succeeded', {'bytes.$': '$.render.bytes', 'totalFrames.$': '$.render.totalFrames'}), End: true},
            [BATCH_STATES.recordFailure]: {...rowRecord('failed', {'error.$': '$.failure.Error', 'cause.$': '$.failure.Cause'}), Next: 'RowFailed'},
            RowFailed: {Type: 'Fail', ErrorPath: '$.failure.Error', CausePath: '$.failure.Cause'},
          },
        },
        ResultPath: null,
        // Over the tolerated failures the Map stops; the manifest is still written.
        Catch: [{ErrorEquals: ['States.ALL'], ResultPath: '$.failure', Next: BATCH_STATES.finish}],
        Next: BATCH_STATES.finish,
      },
      [BATCH_STATES.finish]: {
        Type: 'Task',
        Resource: functionArn,
        Parameters: {action: 'finishBatch', 'batchId.$': '$.batchId', 'bucketName.$': '$.bucketName', 'run.$': '$.run'},
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
  siteId: string
  entry: string
  maxConcurrent: number
  toleratedFailurePercentage: number
}
