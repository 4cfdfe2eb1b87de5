export interface RecordedEvent {
  timestamp: number
  type: string
  details?: Record<string, unknown>
  /** The event this one follows from (a function's end follows its start); default: the one before. */
  after?: RecordedEvent
}

export type Recorder = (type: string, details?: Record<string, unknown>, after?: RecordedEvent, timestamp?: number) => RecordedEvent

/** An event of aws-local-stepfunctions' log. */
export interface LogEvent {
  type: string
  timestamp: number
  state?: {name: string; type: string; input?: unknown; output?: unknown}
  index?: number
  parentState?: {name: string}
  input?: unknown
  output?: unknown
  Error?: string
  Cause?: unknown
}

/** Translates aws-local-stepfunctions' event log into Step Functions history events. */
export function recordLogEvent(event: LogEvent, record: Recorder): void {
  const at = event.timestamp
  const text = (value: unknown) => JSON.stringify(value ?? null)
  switch (event.type) {
    case 'ExecutionStarted':
      record('ExecutionStarted', {executionStartedEventDetails: {input: text(event.input)}}, undefined, at)
      return
    case 'ExecutionSucceeded':
      record('ExecutionSucceeded', {executionSucceededEventDetails: {output: text(event.output)}}, undefined, at)
      return
    case 'ExecutionFailed':
      record('ExecutionFailed', {executionFailedEventDetails: {error: event.Error, cause: String(event.Cause ?? '')}}, undefined, at)
      return
    case 'ExecutionAborted':
      record('ExecutionAborted', undefined, undefined, at)
      return
    case 'ExecutionTimeout':
      record('ExecutionTimedOut', undefined, undefined, at)
      return
    case 'StateEntered':
      record(`${event.state!.type}StateEntered`, {stateEnteredEventDetails: {name: event.state!.name, input: text(event.state!.input)}}, undefined, at)
      return
    case 'StateExited':
      record(`${event.state!.type}StateExited`, {stateExitedEventDetails: {name: event.state!.name, output: text(event.state!.output)}}, undefined, at)
      return
    case 'MapIterationStarted':
    case 'MapIterationSucceeded':
    case 'MapIterationFailed': {
      const key = event.type[0].toLowerCase() + event.type.slice(1) + 'EventDetails'
      record(event.type, {[key]: {name: event.parentState?.name, index: event.index}}, undefined, at)
      return
    }
    default:
      // StateRetried, StateFailed, StateCaught: AWS shows these through the function events.
      return
  }
}
