import type {ChildProcess} from 'node:child_process'
import {StateMachine, type StateMachineDefinition as AslDefinition} from 'aws-local-stepfunctions'
import {MAX_EXECUTION_INPUT_BYTES} from '../validate-config.js'
import {MAP_TASK_STATE, TASK_STATES, type StateMachineDefinition, type TaskStateName} from '../state-machine-definition.js'
import {MAP_MAX_CONCURRENCY, MAX_HISTORY_EVENTS, MAX_STATE_DATA_BYTES} from '../workflow-limits.js'
import {Slots} from './slots.js'
import type {LocalFunction} from './local-function.js'

/** An error answered in the Step Functions JSON protocol (`__type`). */
export class SfnApiError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message)
  }
}

interface RecordedEvent {
  timestamp: number
  type: string
  details?: Record<string, unknown>
  /** The event this one follows from (a function's end follows its start); default: the one before. */
  after?: RecordedEvent
}

interface LocalExecution {
  executionArn: string
  name: string
  input: string
  status: 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED'
  startDate: number
  stopDate?: number
  output?: string
  error?: string
  cause?: string
  events: RecordedEvent[]
  children: Set<ChildProcess>
  abort: () => void
  finished: Promise<void>
  /** Iterations of the inline Map running at once: never more than AWS allows. */
  mapSlots: Slots
}

export interface LocalStepFunctionsOptions {
  stateMachineArn: string
  functionArn: string
  definition: StateMachineDefinition
  /** The function every Task invokes; an invocation it throttles is retried by the state machine. */
  function: LocalFunction
}

/**
 * Step Functions on one machine: executes the render state machine with aws-local-stepfunctions,
 * running each Task through `invoke` (the real handler in a child process), and keeps each
 * execution's status and an AWS-shaped history for DescribeExecution and GetExecutionHistory.
 */
export class LocalStepFunctions {
  private readonly executions = new Map<string, LocalExecution>()
  private readonly machine: StateMachine

  constructor(private readonly options: LocalStepFunctionsOptions) {
    this.machine = new StateMachine(options.definition as unknown as AslDefinition, {validationOptions: {checkArn: true, checkPaths: true}})
  }

  startExecution(request: {stateMachineArn?: string; name?: string; input?: string}): {executionArn: string; startDate: number} {
    this.assertStateMachine(request.stateMachineArn)
    const name = request.name ?? crypto.randomUUID()
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`)
    const executionArn = `${this.options.stateMachineArn.replace(':stateMachine:', ':execution:')}:${name}`
    if (this.executions.has(executionArn)) throw new SfnApiError('ExecutionAlreadyExists', `Execution Already Exists: '${executionArn}'`)
    const input = request.input ?? '{}'
    if (Buffer.byteLength(input, 'utf8') > MAX_EXECUTION_INPUT_BYTES) {
      throw new SfnApiError('InvalidExecutionInput', `Execution input is larger than the maximum of ${MAX_EXECUTION_INPUT_BYTES} bytes`)
    }
    let parsed: unknown
    try {
      parsed = JSON.parse(input)
    } catch {
      throw new SfnApiError('InvalidExecutionInput', 'Invalid State Machine Execution Input: not JSON')
    }
    const execution: LocalExecution = {
      executionArn,
      name,
      input,
      status: 'RUNNING',
      startDate: Date.now(),
      events: [],
      children: new Set(),
      abort: () => {},
      finished: Promise.resolve(),
      mapSlots: new Slots(MAP_MAX_CONCURRENCY),
    }
    this.executions.set(executionArn, execution)
    execution.finished = this.run(execution, parsed)
    return {executionArn, startDate: execution.startDate / 1000}
  }

  describeExecution(request: {executionArn?: string}) {
    const execution = this.find(request.executionArn)
    return {
      executionArn: execution.executionArn,
      stateMachineArn: this.options.stateMachineArn,
      name: execution.name,
      status: execution.status,
      startDate: execution.startDate / 1000,
      ...(execution.stopDate !== undefined && {stopDate: execution.stopDate / 1000}),
      input: execution.input,
      ...(execution.output !== undefined && {output: execution.output}),
      ...(execution.error !== undefined && {error: execution.error}),
      ...(execution.cause !== undefined && {cause: execution.cause}),
    }
  }

  getExecutionHistory(request: {executionArn?: string; maxResults?: number; nextToken?: string; reverseOrder?: boolean}) {
    const execution = this.find(request.executionArn)
    const ordered = execution.events.map((event, order) => ({event, order})).sort((a, b) => a.event.timestamp - b.event.timestamp || a.order - b.order)
    const ids = new Map(ordered.map(({event}, index) => [event, index + 1]))
    let events = ordered.map(({event}, index) => ({
      timestamp: event.timestamp / 1000,
      type: event.type,
      id: index + 1,
      previousEventId: event.after ? ids.get(event.after)! : index,
      ...event.details,
    }))
    if (request.reverseOrder) events = events.reverse()
    const start = Number(request.nextToken ?? 0)
    const size = Math.min(Math.max(request.maxResults || 100, 1), 1000)
    const page = events.slice(start, start + size)
    return {events: page, ...(start + size < events.length && {nextToken: String(start + size)})}
  }

  stopExecution(request: {executionArn?: string; error?: string; cause?: string}): {stopDate: number} {
    const execution = this.find(request.executionArn)
    this.end(execution, 'ABORTED', request.error, request.cause)
    return {stopDate: execution.stopDate! / 1000}
  }

  /** Ends a running execution from outside its state machine (stopped, or over a quota). */
  private end(execution: LocalExecution, status: 'ABORTED' | 'FAILED', error?: string, cause?: string): void {
    if (execution.status !== 'RUNNING') return
    execution.status = status
    execution.stopDate = Date.now()
    execution.error = error
    execution.cause = cause
    execution.abort()
    for (const child of execution.children) child.kill('SIGTERM')
  }

  /** Stops every running execution and waits for them to wind down. */
  async close(): Promise<void> {
    for (const execution of this.executions.values()) this.stopExecution({executionArn: execution.executionArn})
    await Promise.all([...this.executions.values()].map((execution) => execution.finished))
  }

  private async run(execution: LocalExecution, input: unknown): Promise<void> {
    const record = (type: string, details?: Record<string, unknown>, after?: RecordedEvent, timestamp = Date.now()) => {
      const event: RecordedEvent = {timestamp, type, details, after}
      if (execution.events.length >= MAX_HISTORY_EVENTS) {
        this.end(execution, 'FAILED', 'States.Runtime', `The execution reached the maximum number of history events (${MAX_HISTORY_EVENTS}).`)
        return event
      }
      execution.events.push(event)
      return event
    }
    const handlers = Object.fromEntries(TASK_STATES.map((state) => [state, (taskInput: unknown) => this.invokeTask(execution, state, taskInput, record)]))
    const run = this.machine.run(input as never, {overrides: {taskResourceLocalHandlers: handlers}, noThrowOnAbort: true})
    execution.abort = run.abort
    const logs = (async () => {
      for await (const event of run.eventLogs) recordLogEvent(event as unknown as LogEvent, record)
    })()
    try {
      const output = await run.result
      if (execution.status === 'RUNNING') {
        execution.status = 'SUCCEEDED'
        execution.output = JSON.stringify(output)
      }
    } catch (error) {
      if (execution.status === 'RUNNING') {
        const failed = await logs.then(() => execution.events.findLast((event) => event.type === 'ExecutionFailed'))
        const timedOut = execution.events.some((event) => event.type === 'ExecutionTimedOut')
        execution.status = timedOut ? 'TIMED_OUT' : 'FAILED'
        execution.error = (failed?.details?.executionFailedEventDetails as {error?: string})?.error ?? (error as Error).name
        execution.cause = (failed?.details?.executionFailedEventDetails as {cause?: string})?.cause ?? (error as Error).message
      }
    } finally {
      execution.stopDate ??= Date.now()
      await logs.catch(() => {})
    }
  }

  private async invokeTask(
    execution: LocalExecution,
    state: TaskStateName,
    input: unknown,
    record: (type: string, details?: Record<string, unknown>, after?: RecordedEvent) => RecordedEvent,
  ) {
    const inMap = state === MAP_TASK_STATE
    if (inMap) await execution.mapSlots.acquire()
    try {
      return await this.invokeFunction(execution, input, record)
    } finally {
      if (inMap) execution.mapSlots.release()
    }
  }

  private async invokeFunction(execution: LocalExecution, input: unknown, record: (type: string, details?: Record<string, unknown>, after?: RecordedEvent) => RecordedEvent) {
    const inputText = JSON.stringify(input)
    this.checkStateData(execution, inputText, 'input')
    record('LambdaFunctionScheduled', {lambdaFunctionScheduledEventDetails: {resource: this.options.functionArn, input: inputText}})
    let started: RecordedEvent | undefined
    try {
      const output = await this.options.function.invoke(input, {
        onStarted: () => (started = record('LambdaFunctionStarted')),
        onChild: (child) => {
          execution.children.add(child)
          child.once('exit', () => execution.children.delete(child))
        },
      })
      const outputText = JSON.stringify(output)
      this.checkStateData(execution, outputText, 'output')
      record('LambdaFunctionSucceeded', {lambdaFunctionSucceededEventDetails: {output: outputText}}, started)
      return output as never
    } catch (error) {
      const {name, message} = error as Error
      if (started) record('LambdaFunctionFailed', {lambdaFunctionFailedEventDetails: {error: name, cause: message}}, started)
      else record('LambdaFunctionStartFailed', {lambdaFunctionStartFailedEventDetails: {error: name, cause: message}})
      throw error
    }
  }

  /** Over 256 KiB a state's data fails the whole execution; neither Retry nor Catch applies. */
  private checkStateData(execution: LocalExecution, text: string, what: 'input' | 'output'): void {
    const bytes = Buffer.byteLength(text, 'utf8')
    if (bytes <= MAX_STATE_DATA_BYTES) return
    const cause = `The state/task returned a result with a size exceeding the maximum number of bytes service limit (${what} of ${bytes} bytes, limit ${MAX_STATE_DATA_BYTES}).`
    this.end(execution, 'FAILED', 'States.DataLimitExceeded', cause)
    throw Object.assign(new Error(cause), {name: 'States.DataLimitExceeded'})
  }

  private assertStateMachine(arn: string | undefined): void {
    if (arn !== this.options.stateMachineArn) throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`)
  }

  private find(executionArn: string | undefined): LocalExecution {
    const execution = executionArn ? this.executions.get(executionArn) : undefined
    if (!execution) throw new SfnApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`)
    return execution
  }
}

interface LogEvent {
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
function recordLogEvent(event: LogEvent, record: (type: string, details?: Record<string, unknown>, after?: RecordedEvent, timestamp?: number) => RecordedEvent): void {
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
