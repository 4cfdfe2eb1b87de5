import type {StateMachineDefinition} from '../state-machine-definition.js'

/**
 * Longer than any execution runs (the render workflow's backstop is 24 h 15 min), and within a
 * Node timer's 24.8 days: AWS's "no timeout", which a Task has unless it sets one (the emulator's
 * own default is 60 s).
 */
const NO_TIMEOUT_SECONDS = 7 * 24 * 3600

/** A Distributed Map of a definition, as the local stack runs it (aws-local-stepfunctions has no ItemReader). */
export interface DistributedMapState {
  name: string
  /** What its map runs and child executions are named by (`Label`, else the state's name). */
  label: string
  /** Where its items are: an ItemReader's S3 location, as paths on the state's input (`$.bucketName`), or an array in the input (ItemsPath). */
  items: {bucketPath: string; keyPath: string} | {itemsPath: string}
  itemSelector: Record<string, unknown>
  processor: StateMachineDefinition
  maxConcurrencyPath?: string
  toleratedFailurePercentagePath?: string
  /** Where a ResultWriter puts the children's results (paths on the state's input); absent: they are the Map's result. */
  resultWriter?: {bucketPath: string; prefixPath: string}
}

/**
 * The definition the emulator runs: each Distributed Map becomes a Task state that the local
 * stack handles (reading the items from S3 or the state's input, running the child workflow per item,
 * counting a map run), keeping its ResultPath, Catch and transitions; the maps are returned too.
 */
export function emulatedDefinition(definition: StateMachineDefinition, taskResource: string): {definition: StateMachineDefinition; maps: DistributedMapState[]} {
  const maps: DistributedMapState[] = []
  const states: StateMachineDefinition['States'] = {}
  for (const [name, state] of Object.entries(withAwsTimeouts(definition).States)) {
    const processor = state.ItemProcessor as (StateMachineDefinition & {ProcessorConfig?: {Mode?: string}}) | undefined
    if (state.Type !== 'Map' || processor?.ProcessorConfig?.Mode !== 'DISTRIBUTED') {
      states[name] = state
      continue
    }
    const reader = state.ItemReader as {Parameters: Record<string, string>} | undefined
    const writer = state.ResultWriter as {Parameters: Record<string, string>} | undefined
    const {ProcessorConfig: _config, ...childDefinition} = processor
    maps.push({
      name,
      label: (state.Label as string | undefined) ?? name,
      items: reader ? {bucketPath: reader.Parameters['Bucket.$'], keyPath: reader.Parameters['Key.$']} : {itemsPath: (state.ItemsPath as string | undefined) ?? '$'},
      itemSelector: (state.ItemSelector as Record<string, unknown>) ?? {'value.$': '$$.Map.Item.Value'},
      processor: childDefinition,
      maxConcurrencyPath: state.MaxConcurrencyPath as string | undefined,
      toleratedFailurePercentagePath: state.ToleratedFailurePercentagePath as string | undefined,
      ...(writer && {resultWriter: {bucketPath: writer.Parameters['Bucket.$'], prefixPath: writer.Parameters['Prefix.$']}}),
    })
    const {Type: _type, ItemReader: _reader, ResultWriter: _writer, ItemsPath: _items, ItemSelector: _selector, ItemProcessor: _processor, MaxConcurrencyPath: _max, ToleratedFailurePercentagePath: _tolerated, Label: _label, ...kept} = state
    // A Map state has no timeout of its own.
    states[name] = {...kept, Type: 'Task', Resource: taskResource, Parameters: {'input.$': '$'}, TimeoutSeconds: NO_TIMEOUT_SECONDS}
  }
  return {definition: {...definition, States: states}, maps}
}

/** Every Task state that sets no timeout (nor heartbeat) gets AWS's: none. Nested workflows (Map processors) too. */
function withAwsTimeouts(definition: StateMachineDefinition): StateMachineDefinition {
  const states: StateMachineDefinition['States'] = {}
  for (const [name, state] of Object.entries(definition.States)) {
    const timed = state.Type === 'Task' && state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined ? {...state, TimeoutSeconds: NO_TIMEOUT_SECONDS} : state
    const inner = (timed.ItemProcessor ?? timed.Iterator) as StateMachineDefinition | undefined
    states[name] = inner ? {...timed, [timed.ItemProcessor ? 'ItemProcessor' : 'Iterator']: withAwsTimeouts(inner)} : timed
  }
  return {...definition, States: states}
}

/**
 * Evaluates a Parameters-style template (`"key.$": "<path>"`) against a state's input and the
 * Map item's context: the subset of JSONPath the definitions here use (`$`, `$.a.b`,
 * `$$.Map.Item.Value`, `$$.Map.Item.Value.a`, `$$.Map.Item.Index`).
 */
export function applyTemplate(template: Record<string, unknown>, input: unknown, item: {value: unknown; index: number}): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(template)) {
    if (key.endsWith('.$') && typeof value === 'string') out[key.slice(0, -2)] = resolvePath(value, input, item)
    else out[key] = value !== null && typeof value === 'object' && !Array.isArray(value) ? applyTemplate(value as Record<string, unknown>, input, item) : value
  }
  return out
}

export function resolvePath(path: string, input: unknown, item?: {value: unknown; index: number}): unknown {
  if (path === '$$.Map.Item.Index') return item?.index
  const [root, rest] = path.startsWith('$$.Map.Item.Value') ? [item?.value, path.slice('$$.Map.Item.Value'.length)] : [input, path.slice(1)]
  if (!/^(\.[A-Za-z0-9_]+)*$/.test(rest)) throw new Error(`the local stack does not evaluate the path ${path}`)
  return rest
    .split('.')
    .slice(1)
    .reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], root)
}

/** Every Task state of a definition (inline Map iterations included), by name, with its resource. */
export function taskResources(definition: StateMachineDefinition): Map<string, string> {
  const tasks = new Map<string, string>()
  for (const [name, state] of Object.entries(definition.States)) {
    if (state.Type === 'Task') tasks.set(name, state.Resource as string)
    const inner = (state.ItemProcessor ?? state.Iterator) as StateMachineDefinition | undefined
    if (state.Type === 'Map' && inner) for (const [task, resource] of taskResources(inner)) tasks.set(task, resource)
  }
  return tasks
}
