import {DeleteFunctionCommand, GetAliasCommand, LambdaClient, ListVersionsByFunctionCommand, type FunctionConfiguration} from '@aws-sdk/client-lambda'
import {DescribeStateMachineForExecutionCommand, ListExecutionsCommand, type SFNClient} from '@aws-sdk/client-sfn'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {clientConfig, createSfnClient, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {batchStateMachineArnOf} from '../batch/batch-state-machine.js'
import {DEFAULT_STACK_NAME, LIVE_ALIAS} from './stack-resources.js'

export interface FunctionVersion {
  version: string
  /** The live alias names it: the workflows deployed last invoke it. */
  live: boolean
  /** Executions still running on it (a render started before a later deploy). */
  runningExecutions: number
  lastModified?: string
  memoryMb?: number
  arch?: string
  codeSha256?: string
  description?: string
}

export interface FunctionVersionsOptions extends AwsClientOptions {
  /** The stack's name (deploy --name). */
  name?: string
  lambda?: LambdaClient
  sfn?: SFNClient
}

/** Running executions looked at: enough for any stack; a version used beyond them is still never the live one. */
const MAX_RUNNING_LOOKED_AT = 1000

/**
 * The published versions of the render function, newest first, each with whether the live alias
 * names it and how many running executions (of the render and batch workflows) still invoke it:
 * a running execution keeps the definition, so the version, it started with.
 */
export async function listFunctionVersions(options: FunctionVersionsOptions = {}): Promise<FunctionVersion[]> {
  const name = options.name ?? DEFAULT_STACK_NAME
  const lambda = options.lambda ?? new LambdaClient(clientConfig(options))
  const sfn = options.sfn ?? createSfnClient(options)
  try {
    const versions: FunctionConfiguration[] = []
    let marker: string | undefined
    do {
      const page = await lambda.send(new ListVersionsByFunctionCommand({FunctionName: name, Marker: marker}))
      versions.push(...(page.Versions ?? []).filter((version) => version.Version !== '$LATEST'))
      marker = page.NextMarker
    } while (marker)
    const live = await lambda.send(new GetAliasCommand({FunctionName: name, Name: LIVE_ALIAS})).then(
      (alias) => alias.FunctionVersion,
      () => undefined,
    )
    const functionArn = versions[0]?.FunctionArn?.replace(/:\d+$/, '')
    const inUse = functionArn ? await versionsInUse(sfn, functionArn, name) : new Map<string, number>()
    return versions
      .map((version) => ({
        version: version.Version!,
        live: version.Version === live,
        runningExecutions: inUse.get(version.Version!) ?? 0,
        ...(version.LastModified && {lastModified: version.LastModified}),
        ...(version.MemorySize !== undefined && {memoryMb: version.MemorySize}),
        ...(version.Architectures?.[0] && {arch: version.Architectures[0]}),
        ...(version.CodeSha256 && {codeSha256: version.CodeSha256}),
        ...(version.Description && {description: version.Description}),
      }))
      .sort((a, b) => Number(b.version) - Number(a.version))
  } catch (error) {
    throw awsFailure(error, `listing the versions of function ${name}`, {endpoint: options.endpoint})
  }
}

/** How many running executions of the stack's workflows invoke each version. */
async function versionsInUse(sfn: SFNClient, functionArn: string, name: string): Promise<Map<string, number>> {
  const [, , , region, accountId] = functionArn.split(':')
  const renderMachine = `arn:aws:states:${region}:${accountId}:stateMachine:${name}`
  const counts = new Map<string, number>()
  const version = new RegExp(`${functionArn.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:(\\d+)"`)
  let looked = 0
  for (const stateMachineArn of [renderMachine, batchStateMachineArnOf(renderMachine)]) {
    let nextToken: string | undefined
    do {
      const page = await sfn.send(new ListExecutionsCommand({stateMachineArn, statusFilter: 'RUNNING', nextToken, maxResults: 100})).catch((error: Error) => {
        if (error.name === 'StateMachineDoesNotExist') return {executions: [], nextToken: undefined}
        throw error
      })
      for (const execution of page.executions ?? []) {
        if (looked++ >= MAX_RUNNING_LOOKED_AT) return counts
        const described = await sfn.send(new DescribeStateMachineForExecutionCommand({executionArn: execution.executionArn}))
        const used = version.exec(described.definition ?? '')?.[1]
        if (used) counts.set(used, (counts.get(used) ?? 0) + 1)
      }
      nextToken = page.nextToken
    } while (nextToken)
  }
  return counts
}

export interface RemovedVersions {
  removed: string[]
  /** Versions asked for (or beyond --keep) that stay, and why. */
  kept: {version: string; reason: string}[]
}

/**
 * Deletes old versions: those named, or all but the newest `keep`. The live version and any
 * version a running execution invokes are never deleted (the render would fail on its next chunk).
 */
export async function removeFunctionVersions(options: FunctionVersionsOptions & {versions?: readonly string[]; keep?: number}): Promise<RemovedVersions> {
  const name = options.name ?? DEFAULT_STACK_NAME
  if ((options.versions?.length ?? 0) === 0 && options.keep === undefined) {
    throw new EngineError('INVALID_FLAG', 'name the versions to remove, or pass --keep <n> to remove all but the newest n', {field: 'versions'})
  }
  if (options.keep !== undefined && !(Number.isInteger(options.keep) && options.keep >= 1)) {
    throw new EngineError('INVALID_FLAG', `--keep: ${options.keep} must be a whole number of at least 1 (the live version is always kept)`, {field: 'keep', value: options.keep})
  }
  const lambda = options.lambda ?? new LambdaClient(clientConfig(options))
  const versions = await listFunctionVersions({...options, lambda})
  const known = new Map(versions.map((version) => [version.version, version]))
  for (const asked of options.versions ?? []) {
    if (!known.has(asked)) {
      throw new EngineError('NOT_FOUND', `version "${asked}" of function ${name} does not exist; \`engine lambda functions ls\` lists them (${versions.map((v) => v.version).join(', ') || 'none'})`, {
        field: 'versions',
        value: asked,
      })
    }
  }
  const candidates = options.versions ? options.versions.map((version) => known.get(version)!) : versions.slice(options.keep)
  const result: RemovedVersions = {removed: [], kept: []}
  for (const version of candidates) {
    if (version.live) result.kept.push({version: version.version, reason: `the ${LIVE_ALIAS} alias names it`})
    else if (version.runningExecutions > 0) result.kept.push({version: version.version, reason: `${version.runningExecutions} running execution(s) invoke it`})
    else {
      await lambda.send(new DeleteFunctionCommand({FunctionName: name, Qualifier: version.version})).catch((error: unknown) => {
        throw awsFailure(error, `deleting version ${version.version} of function ${name}`, {endpoint: options.endpoint})
      })
      result.removed.push(version.version)
    }
  }
  return result
}
