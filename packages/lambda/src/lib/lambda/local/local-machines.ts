import {StateMachine, type StateMachineDefinition as AslDefinition} from 'aws-local-stepfunctions'
import type {StateMachineDefinition} from '../state-machine-definition.js'
import {emulatedDefinition, taskResources, type DistributedMapState} from './emulated-definition.js'
import {SfnApiError} from './sfn-api-error.js'

/** What a Distributed Map becomes in the definition the emulator runs (see emulated-definition.ts). */
export const LOCAL_MAP = 'arn:aws:states:::engine-local:distributedMap'

export interface LocalMachine {
  arn: string
  /** The definition as given (what DescribeStateMachine and DescribeStateMachineForExecution answer). */
  definition: string
  /** What the emulator runs: Distributed Maps replaced by tasks the stack handles. */
  emulated: StateMachine
  maps: Map<string, {state: DistributedMapState; processor: StateMachine}>
  /** Task states by name, with the resource each calls (nested Map states included). */
  tasks: Map<string, string>
}

/** The local stack's state machines, as Step Functions' control plane keeps them: the two it starts with, and what deploy and destroy change. */
export class LocalMachines {
  private readonly machines = new Map<string, LocalMachine>()
  /** `arn:aws:states:<region>:<account>`, from the stack's own workflows. */
  private readonly arnPrefix: string

  constructor(machines: readonly {arn: string; definition: StateMachineDefinition}[]) {
    for (const {arn, definition} of machines) this.machines.set(arn, localMachine(arn, definition))
    this.arnPrefix = machines[0]!.arn.split(':stateMachine:')[0]!
  }

  get(arn: string | undefined): LocalMachine {
    const machine = arn ? this.machines.get(arn) : undefined
    if (!machine) throw new SfnApiError('StateMachineDoesNotExist', `State Machine Does Not Exist: '${arn}'`)
    return machine
  }

  describe(request: {stateMachineArn?: string}) {
    const machine = this.get(request.stateMachineArn)
    return {stateMachineArn: machine.arn, name: machine.arn.split(':').at(-1), status: 'ACTIVE', type: 'STANDARD', definition: machine.definition}
  }

  /** What `engine lambda deploy` sends: executions started from now on run the new definition, running ones keep theirs (as on AWS). */
  update(request: {stateMachineArn?: string; definition?: string}) {
    const machine = this.get(request.stateMachineArn)
    this.machines.set(machine.arn, checkedMachine(machine.arn, request.definition))
    return {updateDate: Date.now() / 1000}
  }

  /**
   * A workflow `engine lambda deploy` creates after `lambda destroy` removed it, under this stack's
   * account and region; the same name with another definition is refused, as AWS refuses it.
   */
  create(request: {name?: string; definition?: string}) {
    const name = request.name ?? ''
    if (!/^[A-Za-z0-9_-]{1,80}$/.test(name)) throw new SfnApiError('InvalidName', `Invalid Name: '${name}'`)
    const arn = `${this.arnPrefix}:stateMachine:${name}`
    const machine = checkedMachine(arn, request.definition)
    const existing = this.machines.get(arn)
    if (existing && existing.definition !== machine.definition) throw new SfnApiError('StateMachineAlreadyExists', `State Machine Already Exists: '${arn}'`)
    if (!existing) this.machines.set(arn, machine)
    return {stateMachineArn: arn, creationDate: Date.now() / 1000}
  }

  /** `engine lambda destroy`: no new execution starts; running ones end on the definition they started with (AWS stops them soon after). */
  delete(request: {stateMachineArn?: string}) {
    this.machines.delete(this.get(request.stateMachineArn).arn)
    return {}
  }
}

/** A definition from a request: not JSON, or one the emulator cannot run, is InvalidDefinition (as AWS refuses it), never an internal error. */
function checkedMachine(arn: string, text: string | undefined): LocalMachine {
  let definition: StateMachineDefinition
  try {
    definition = JSON.parse(text ?? '') as StateMachineDefinition
  } catch {
    throw new SfnApiError('InvalidDefinition', 'Invalid State Machine Definition: not JSON')
  }
  try {
    return localMachine(arn, definition)
  } catch (error) {
    throw new SfnApiError('InvalidDefinition', `Invalid State Machine Definition: ${(error as Error).message.slice(0, 500)}`)
  }
}

function localMachine(arn: string, definition: StateMachineDefinition): LocalMachine {
  const validationOptions = {checkArn: true, checkPaths: true}
  const {definition: emulated, maps} = emulatedDefinition(definition, LOCAL_MAP)
  return {
    arn,
    definition: JSON.stringify(definition),
    emulated: new StateMachine(emulated as unknown as AslDefinition, {validationOptions}),
    maps: new Map(maps.map((state) => [state.name, {state, processor: new StateMachine(state.processor as unknown as AslDefinition, {validationOptions})}])),
    tasks: taskResources(emulated),
  }
}
