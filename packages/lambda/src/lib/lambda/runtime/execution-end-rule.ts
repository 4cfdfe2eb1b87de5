import {z} from 'zod'

/**
 * Execution ends that run no Catch of the render workflow, or whose Catch may not have finished:
 * the execution timeout (TIMED_OUT), a stop from outside — `engine lambda cancel`, the console, the
 * API — (ABORTED), and any failure (FAILED: the failure path ran, and the rule sweeps the scratch
 * once more after the chunks that were still running have stopped, or writes the failure record
 * when the failure path itself failed).
 */
export const HANDLED_END_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const
export type HandledEndStatus = (typeof HANDLED_END_STATUSES)[number]

/** The EventBridge rule's pattern: status changes of the render workflow's executions to a handled end. */
export function executionEndPattern(stateMachineArn: string) {
  return {
    source: ['aws.states'],
    'detail-type': ['Step Functions Execution Status Change'],
    detail: {status: [...HANDLED_END_STATUSES], stateMachineArn: [stateMachineArn]},
  }
}

/**
 * The rule target's input transformer: the function gets an `executionEnded` event, not the raw
 * EventBridge envelope. Placeholders outside quotes are replaced by their JSON values (strings
 * quoted, a missing error or cause null).
 */
export const EXECUTION_END_INPUT_TRANSFORMER = {
  InputPathsMap: {
    executionArn: '$.detail.executionArn',
    status: '$.detail.status',
    name: '$.detail.name',
    input: '$.detail.input',
    error: '$.detail.error',
    cause: '$.detail.cause',
  },
  InputTemplate: '{"action":"executionEnded","executionArn":<executionArn>,"status":<status>,"renderId":<name>,"input":<input>,"error":<error>,"cause":<cause>}',
} as const

/** The `detail` of a Step Functions execution status change, as EventBridge delivers it. */
export interface ExecutionStatusDetail {
  executionArn: string
  stateMachineArn: string
  name: string
  status: string
  input: string | null
  error: string | null
  cause: string | null
}

/**
 * What the rule does with one status change: the event the function is invoked with, or undefined
 * when the pattern does not match. The local stack runs every ended execution through this, so the
 * pattern and transformer tested there are the ones deployed.
 */
export function executionEndTarget(stateMachineArn: string, detail: ExecutionStatusDetail): ExecutionEndedEvent | undefined {
  const pattern = executionEndPattern(stateMachineArn).detail
  if (!pattern.stateMachineArn.includes(detail.stateMachineArn) || !(pattern.status as readonly string[]).includes(detail.status)) return undefined
  const values: Record<string, unknown> = {
    executionArn: detail.executionArn,
    status: detail.status,
    name: detail.name,
    input: detail.input,
    error: detail.error,
    cause: detail.cause,
  }
  const text = EXECUTION_END_INPUT_TRANSFORMER.InputTemplate.replace(/<(\w+)>/g, (_, key: string) => JSON.stringify(values[key] ?? null))
  return JSON.parse(text) as ExecutionEndedEvent
}

/** The function's event for an ended execution (validated with the other events in render-input.ts). */
export const executionEndedEventSchema = z.object({
  action: z.literal('executionEnded'),
  executionArn: z.string().min(1).max(2048),
  status: z.enum(HANDLED_END_STATUSES),
  renderId: z.string().regex(/^[A-Za-z0-9_-]{1,80}$/),
  /** The execution's input (JSON text): the render's bucket is read from it. */
  input: z.string().max(262_144).nullable(),
  error: z.string().max(1024).nullable(),
  cause: z.string().max(65_536).nullable(),
})

export type ExecutionEndedEvent = z.infer<typeof executionEndedEventSchema>
