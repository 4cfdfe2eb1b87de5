import type {ChildProcess} from 'node:child_process'
import {PutObjectCommand, type S3Client} from '@aws-sdk/client-s3'
import type {RunOptions} from 'aws-local-stepfunctions'
import {MAX_EXECUTION_INPUT_BYTES} from '../validate-config.js'
import {MAP_TASK_STATE, type StateMachineDefinition} from '../state-machine-definition.js'
import {MAP_MAX_CONCURRENCY, MAX_HISTORY_EVENTS, MAX_STATE_DATA_BYTES} from '../workflow-limits.js'
import {BucketObjects} from '../s3-objects.js'
import {applyTemplate, resolvePath, taskResources, type DistributedMapState} from './emulated-definition.js'
import {LocalMapRun} from './local-map-run.js'
import {LOCAL_MAP, LocalMachines, type LocalMachine} from './local-machines.js'
import {SfnApiError} from './sfn-api-error.js'
import {recordLogEvent, type LogEvent, type Recorder, type RecordedEvent} from './execution-history.js'
import {Slots} from './slots.js'
import type {LocalFunction} from './local-function.js'
import type {ExecutionStatusDetail} from '../runtime/execution-end-rule.js'

export {SfnApiError} from './sfn-api-error.js'

const START_SYNC = 'arn:aws:states:::states:startExecution.sync:2'
const S3_PUT_OBJECT = 'arn:aws:states:::aws-sdk:s3:putObject'

/** How one item's child workflow ended, for the Map's result. */
type MapItemOutcome = {status: 'SUCCEEDED'; output: unknown} | {status: 'FAILED'; error: string; cause: string}

/** The emulator's handlers by task state name; every value they pass is JSON. */
type TaskHandlers = NonNullable<NonNullable<RunOptions['overrides']>['taskResourceLocalHandlers']>

type Status = 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'TIMED_OUT' | 'ABORTED'

interface LocalExecution {
  executionArn: string
  stateMachineArn: string
  name: string
  input: string
  status: Status
  startDate: number
  stopDate?: number
  output?: string
  error?: string
  cause?: string
  events: RecordedEvent[]
  children: Set<ChildProcess>
  mapRuns: LocalMapRun[]
  /** The machine as it was when the execution started: an update does not change a running execution. */
  machine: LocalMachine
  abort: () => void
  finished: Promise<void>
  /** Iterations of the inline Map running at once: never more than AWS allows. */
  mapSlots: Slots
  /** The status change to an end has been announced (see `onExecutionEnded`). */
  announced?: boolean
}

export interface LocalStepFunctionsOptions {
  /** The render workflow and, beside it, the batch workflow. */
  machines: {arn: string; definition: StateMachineDefinition}[]
  /** The function every Lambda task invokes; an invocation it throttles is retried by the state machine. */
  function: LocalFunction
  /** The stack's own S3, for ItemReaders and the S3 task integration (the endpoint is known once it listens). */
  s3?: () => S3Client
  /** Each execution's end, once, as EventBridge sees a status change (not while the stack closes). */
  onExecutionEnded?: (detail: ExecutionStatusDetail) => void
}

/**
 * Step Functions on one machine: executes the stack's state machines with aws-local-stepfunctions,
 * running each Lambda task through the local function (the real handler in a child process), a
 * nested workflow (`startExecution.sync:2`) as an execution of its own, S3 PutObject tasks on the
 * stack's S3, and each Distributed Map as a map run (items from S3, a child workflow per item,
 * MaxConcurrency and tolerated failures as on AWS). Keeps each execution's status and an
 * AWS-shaped history for the API (see sfn-json-api.ts).
 */
export class LocalStepFunctions {
  private readonly executions = new Map<string, LocalExecution>()
  private readonly mapRuns = new Map<string, LocalMapRun>()
  private closing = false

  constructor(private readonly options: LocalStepFunctionsOptions) {
    this.machines = new LocalMachines(options.machines)
  }

  /** DescribeStateMachine, CreateStateMachine, UpdateStateMachine, DeleteStateMachine. */
  readonly machines: LocalMachines

  describeStateMachineForExecution(request: {executionArn?: string}) {
    const execution = this.find(request.executionArn)
    return {stateMachineArn: execution.machine.arn, name: execution.machine.arn.split(':').at(-1), definition: execution.machine.definition}
  }

  startExecution(request: {stateMachineArn?: string; name?: string; input?: string}): {executionArn: string; startDate: number} {
    const machine = this.machine(request.stateMachineArn)
    const name = request.name ?? crypto.randomUUID()
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`)
    const executionArn = `${machine.arn.replace(':stateMachine:', ':execution:')}:${name}`
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
      stateMachineArn: machine.arn,
      name,
      input,
      status: 'RUNNING',
      startDate: Date.now(),
      events: [],
      children: new Set(),
      mapRuns: [],
      machine,
      abort: () => {},
      finished: Promise.resolve(),
      mapSlots: new Slots(MAP_MAX_CONCURRENCY),
    }
    this.executions.set(executionArn, execution)
    execution.finished = this.run(machine, execution, parsed)
    return {executionArn, startDate: execution.startDate / 1000}
  }

  describeExecution(request: {executionArn?: string}) {
    const execution = this.find(request.executionArn)
    return {
      ...executionSummary(execution),
      input: execution.input,
      ...(execution.output !== undefined && {output: execution.output}),
      ...(execution.error !== undefined && {error: execution.error}),
      ...(execution.cause !== undefined && {cause: execution.cause}),
    }
  }

  /** Newest first, as AWS lists them; `statusFilter` keeps one status. */
  listExecutions(request: {stateMachineArn?: string; statusFilter?: Status; maxResults?: number; nextToken?: string}) {
    const machine = this.machine(request.stateMachineArn)
    const matching = [...this.executions.values()]
      .filter((execution) => execution.stateMachineArn === machine.arn && (!request.statusFilter || execution.status === request.statusFilter))
      .sort((a, b) => b.startDate - a.startDate)
    const {items, nextToken} = page(matching, request)
    return {executions: items.map(executionSummary), ...(nextToken && {nextToken})}
  }

  listMapRuns(request: {executionArn?: string}) {
    const execution = this.find(request.executionArn)
    const mapRuns = execution.mapRuns.map((run) => ({
      executionArn: execution.executionArn,
      mapRunArn: run.mapRunArn,
      stateMachineArn: execution.stateMachineArn,
      startDate: run.startDate / 1000,
      ...(run.stopDate !== undefined && {stopDate: run.stopDate / 1000}),
    }))
    return {mapRuns}
  }

  describeMapRun(request: {mapRunArn?: string}) {
    const run = request.mapRunArn ? this.mapRuns.get(request.mapRunArn) : undefined
    if (!run) throw new SfnApiError('ResourceNotFound', `Map Run Does Not Exist: '${request.mapRunArn}'`)
    return {
      mapRunArn: run.mapRunArn,
      executionArn: run.executionArn,
      status: run.status,
      startDate: run.startDate / 1000,
      ...(run.stopDate !== undefined && {stopDate: run.stopDate / 1000}),
      maxConcurrency: run.maxConcurrency,
      toleratedFailurePercentage: run.toleratedFailurePercentage,
      toleratedFailureCount: 0,
      itemCounts: {...run.counts},
      executionCounts: {...run.counts},
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
    const {items, nextToken} = page(events, request)
    return {events: items, ...(nextToken && {nextToken})}
  }

  stopExecution(request: {executionArn?: string; error?: string; cause?: string}): {stopDate: number} {
    const execution = this.find(request.executionArn)
    this.end(execution, 'ABORTED', request.error, request.cause)
    return {stopDate: execution.stopDate! / 1000}
  }

  /**
   * Ends a running execution from outside its state machine (stopped, or over a quota), with its
   * map runs. As on AWS, the function invocations it was waiting for run on: only their results
   * are dropped.
   */
  private end(execution: LocalExecution, status: 'ABORTED' | 'FAILED', error?: string, cause?: string): void {
    if (execution.status !== 'RUNNING') return
    execution.status = status
    execution.stopDate = Date.now()
    execution.error = error
    execution.cause = cause
    execution.abort()
    for (const run of execution.mapRuns) run.abort()
    this.announce(execution)
  }

  private announce(execution: LocalExecution): void {
    if (execution.announced || execution.status === 'RUNNING' || this.closing) return
    execution.announced = true
    this.options.onExecutionEnded?.({
      executionArn: execution.executionArn,
      stateMachineArn: execution.stateMachineArn,
      name: execution.name,
      status: execution.status,
      input: execution.input,
      error: execution.error ?? null,
      cause: execution.cause ?? null,
    })
  }

  /** Stops every running execution, and the invocations they started, and waits for them to wind down. */
  async close(): Promise<void> {
    this.closing = true
    for (const execution of this.executions.values()) {
      this.stopExecution({executionArn: execution.executionArn})
      for (const child of execution.children) child.kill('SIGTERM')
    }
    await Promise.all([...this.executions.values()].map((execution) => execution.finished))
  }

  private async run(machine: LocalMachine, execution: LocalExecution, input: unknown): Promise<void> {
    const record: Recorder = (type, details, after, timestamp = Date.now()) => {
      const event: RecordedEvent = {timestamp, type, details, after}
      if (execution.events.length >= MAX_HISTORY_EVENTS) {
        this.end(execution, 'FAILED', 'States.Runtime', `The execution reached the maximum number of history events (${MAX_HISTORY_EVENTS}).`)
        return event
      }
      execution.events.push(event)
      return event
    }
    const handlers: TaskHandlers = Object.fromEntries(
      [...machine.tasks].map(([state, resource]) => [
        state,
        resource === LOCAL_MAP ? (taskInput: unknown) => this.runMap(machine, execution, state, taskInput) as never : (taskInput: unknown) => this.invokeTask(execution, state, resource, taskInput, record),
      ]),
    )
    const run = machine.emulated.run(input as never, {overrides: {taskResourceLocalHandlers: handlers}, noThrowOnAbort: true})
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
        // AWS names an execution timeout States.Timeout (the emulator: ExecutionTimeoutError).
        execution.error = timedOut ? 'States.Timeout' : ((failed?.details?.executionFailedEventDetails as {error?: string})?.error ?? (error as Error).name)
        execution.cause = timedOut ? 'The execution ran past the TimeoutSeconds of its state machine.' : ((failed?.details?.executionFailedEventDetails as {cause?: string})?.cause ?? (error as Error).message)
      }
    } finally {
      execution.stopDate ??= Date.now()
      await logs.catch(() => {})
      this.announce(execution)
    }
  }

  /**
   * A Distributed Map: reads its items (JSON Lines) from S3, then runs the child workflow for each
   * item in a map run that the API lists and describes.
   */
  private async runMap(machine: LocalMachine, execution: LocalExecution, name: string, taskInput: unknown): Promise<unknown> {
    const {state, processor} = machine.maps.get(name)!
    const input = (taskInput as {input: unknown}).input
    const number = (path: string | undefined, fallback: number) => (path === undefined ? fallback : Number(resolvePath(path, input)))
    const items = await this.mapItems(state, input)
    const run = new LocalMapRun(execution.executionArn, execution.stateMachineArn, state.label, number(state.maxConcurrencyPath, 0), number(state.toleratedFailurePercentagePath, 0))
    this.mapRuns.set(run.mapRunArn, run)
    execution.mapRuns.push(run)
    if (execution.status !== 'RUNNING') run.abort()
    const outcomes: MapItemOutcome[] = []
    try {
      await run.run(items, async (value, index, onStop) => {
        const nested = new Set<string>()
        onStop(() => {
          for (const executionArn of nested) this.stopExecution({executionArn})
        })
        const handlers: TaskHandlers = Object.fromEntries(
          [...taskResources(state.processor)].map(([task, resource]) => [task, (params: unknown) => this.integration(resource, params, nested) as never]),
        )
        const child = processor.run(applyTemplate(state.itemSelector, input, {value, index}) as never, {overrides: {taskResourceLocalHandlers: handlers}})
        onStop(() => child.abort())
        try {
          outcomes[index] = {status: 'SUCCEEDED', output: await child.result}
        } catch (error) {
          outcomes[index] = {status: 'FAILED', error: (error as Error).name, cause: (error as Error).message}
          throw error
        }
      })
    } finally {
      run.result = await this.mapResult(state, input, run, outcomes)
    }
    // As on AWS, the Map's own result is state data: over 256 KiB it fails the execution.
    this.checkStateData(execution, JSON.stringify(run.result), 'output')
    return run.result
  }

  /**
   * What a Distributed Map returns, as AWS builds it: its children's outputs (succeeded ones, in
   * item order), or with a ResultWriter only where it wrote them (a manifest and one file per
   * status), written whether the run succeeded or not.
   */
  private async mapResult(state: DistributedMapState, input: unknown, run: LocalMapRun, outcomes: readonly (MapItemOutcome | undefined)[]): Promise<unknown> {
    if (!state.resultWriter) return outcomes.flatMap((outcome) => (outcome?.status === 'SUCCEEDED' ? [outcome.output] : []))
    const bucketName = String(resolvePath(state.resultWriter.bucketPath, input))
    const prefix = `${String(resolvePath(state.resultWriter.prefixPath, input))}/${run.mapRunArn.split(':').at(-1)}/`
    const bucket = new BucketObjects(this.options.s3!(), bucketName)
    const files = []
    for (const status of ['SUCCEEDED', 'FAILED'] as const) {
      const entries = outcomes.flatMap((outcome) => {
        if (outcome?.status !== status) return []
        return [{MapRunArn: run.mapRunArn, Status: status, ...(outcome.status === 'SUCCEEDED' ? {Output: JSON.stringify(outcome.output)} : {Error: outcome.error, Cause: outcome.cause})}]
      })
      const key = `${prefix}${status}_0.json`
      await bucket.putJson(key, entries)
      files.push({Key: key, Size: entries.length})
      run.counts.resultsWritten += entries.length
    }
    const manifestKey = `${prefix}manifest.json`
    await bucket.putJson(manifestKey, {DestinationBucket: bucketName, MapRunArn: run.mapRunArn, ResultFiles: {SUCCEEDED: [files[0]], FAILED: [files[1]], PENDING: []}})
    return {MapRunArn: run.mapRunArn, ResultWriterDetails: {Bucket: bucketName, Key: manifestKey}}
  }

  /** A Distributed Map's items: JSON Lines from S3 (an ItemReader), or an array in its input (ItemsPath). */
  private async mapItems(state: DistributedMapState, input: unknown): Promise<unknown[]> {
    if ('itemsPath' in state.items) {
      const items = resolvePath(state.items.itemsPath, input)
      if (!Array.isArray(items)) throw Object.assign(new Error(`ItemsPath ${state.items.itemsPath} is not an array`), {name: 'States.Runtime'})
      return items
    }
    const bucket = new BucketObjects(this.options.s3!(), String(resolvePath(state.items.bucketPath, input)))
    const items: unknown[] = []
    for await (const line of (await bucket.lines(String(resolvePath(state.items.keyPath, input)))) ?? []) if (line.trim() !== '') items.push(JSON.parse(line))
    return items
  }

  /** A task of a map's child workflow: a nested render (waited for), an S3 PutObject, or the function. */
  private async integration(resource: string, params: unknown, nested: Set<string>): Promise<unknown> {
    if (resource === START_SYNC) {
      const {StateMachineArn, Name, Input} = params as {StateMachineArn: string; Name?: string; Input: unknown}
      const executionArn = `${StateMachineArn.replace(':stateMachine:', ':execution:')}:${Name}`
      // A retried start of the same name waits for the execution the first one started, as on AWS.
      const existing = this.executions.get(executionArn) ?? this.executions.get(this.startExecution({stateMachineArn: StateMachineArn, name: Name, input: JSON.stringify(Input)}).executionArn)!
      nested.add(existing.executionArn)
      await existing.finished
      nested.delete(existing.executionArn)
      // The service integration answers DescribeExecution's fields in PascalCase; `.sync:2` parses Output.
      const described = pascalCaseKeys(this.describeExecution({executionArn: existing.executionArn}))
      if (existing.status === 'SUCCEEDED') return {...described, Output: JSON.parse(existing.output ?? 'null')}
      throw Object.assign(new Error(JSON.stringify(described)), {name: 'States.TaskFailed'})
    }
    if (resource === S3_PUT_OBJECT) {
      const {Bucket, Key, Body, ContentType} = params as {Bucket: string; Key: string; Body: unknown; ContentType?: string}
      const result = await this.options.s3!().send(new PutObjectCommand({Bucket, Key, ContentType, Body: typeof Body === 'string' ? Body : JSON.stringify(Body)}))
      return {ETag: result.ETag}
    }
    return this.options.function.invoke(params)
  }

  private async invokeTask(execution: LocalExecution, state: string, resource: string, input: unknown, record: Recorder) {
    const inMap = state === MAP_TASK_STATE
    if (inMap) await execution.mapSlots.acquire()
    try {
      return await this.invokeFunction(execution, resource, input, record)
    } finally {
      if (inMap) execution.mapSlots.release()
    }
  }

  /** The local function runs every version's invocation; the history names the one the definition invokes, as AWS's does. */
  private async invokeFunction(execution: LocalExecution, resource: string, input: unknown, record: Recorder) {
    const inputText = JSON.stringify(input)
    this.checkStateData(execution, inputText, 'input')
    record('LambdaFunctionScheduled', {lambdaFunctionScheduledEventDetails: {resource, input: inputText}})
    let started: RecordedEvent | undefined
    // The environment is the execution's to stop while this invocation runs; a warm one outlives it.
    let environment: ChildProcess | undefined
    try {
      const output = await this.options.function.invoke(input, {
        onStarted: () => (started = record('LambdaFunctionStarted')),
        onChild: (child) => {
          environment = child
          execution.children.add(child)
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
    } finally {
      if (environment) execution.children.delete(environment)
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

  private machine(arn: string | undefined): LocalMachine {
    return this.machines.get(arn)
  }

  private find(executionArn: string | undefined): LocalExecution {
    const execution = executionArn ? this.executions.get(executionArn) : undefined
    if (!execution) throw new SfnApiError('ExecutionDoesNotExist', `Execution Does Not Exist: '${executionArn}'`)
    return execution
  }
}

/** One page of a list, as the API pages them: at most `maxResults` (default 100, at most 1,000), resumed from `nextToken`. */
function page<T>(all: readonly T[], request: {maxResults?: number; nextToken?: string}): {items: T[]; nextToken?: string} {
  const start = Number(request.nextToken ?? 0)
  const size = Math.min(Math.max(request.maxResults || 100, 1), 1000)
  return {items: all.slice(start, start + size), ...(start + size < all.length && {nextToken: String(start + size)})}
}

function pascalCaseKeys(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).map(([key, value]) => [key[0]!.toUpperCase() + key.slice(1), value]))
}

/** What ListExecutions says of an execution; DescribeExecution adds its input, output and error. */
function executionSummary(execution: LocalExecution) {
  return {
    executionArn: execution.executionArn,
    stateMachineArn: execution.stateMachineArn,
    name: execution.name,
    status: execution.status,
    startDate: execution.startDate / 1000,
    ...(execution.stopDate !== undefined && {stopDate: execution.stopDate / 1000}),
  }
}
