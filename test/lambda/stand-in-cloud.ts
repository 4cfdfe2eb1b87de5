import type {Pluggable} from '@smithy/types'
import {writeZip} from '../../packages/lambda/src/lib/lambda/bundle/write-zip.js'
import {hashFile} from '../../packages/lambda/src/lib/lambda/site-files.js'

/** A function bundle as `engine lambda bundle` lays it out (manifest and handler), small; its hash is registered as Lambda would report it. */
export async function writeBundle(path: string, handler: string, codeHashes: Map<string, string>, arch?: string): Promise<string> {
  await writeZip(path, [
    {name: 'engine-bundle.json', source: Buffer.from(JSON.stringify({formats: ['mp4', 'png'], ...(arch && {arch})}))},
    {name: 'handler.mjs', source: Buffer.from(handler)},
  ])
  const {sha256} = await hashFile(path)
  codeHashes.set(sha256.slice(0, 16), Buffer.from(sha256, 'hex').toString('base64'))
  return path
}

/** One request deploy sent, as the real SDK built it. */
export interface Call {
  command: string
  input: Record<string, unknown>
  /** The HTTP request the SDK serialised (method and path), proof that the input has the service's shape. */
  request: {method: string; path: string}
}

export interface AccountShape {
  accountId: string
  region: string
  /** ConcurrentExecutions (a new account: 10). */
  concurrency: number
  /** The largest MemorySize AWS accepts (a new account: 3,008 MB; otherwise 10,240). */
  memoryCapMb: number
  /** The base64 sha256 Lambda reports for the code under each deploy/function-<16 hex>.zip key. */
  codeHashes: Map<string, string>
  /** Keys whose object someone replaced after deploy wrote it (Lambda then reports another hash), until deploy writes it again. */
  swapped?: Set<string>
  /** Clients (SFNClient) or commands (GetBucketLifecycleConfigurationCommand) whose requests go on to a real server (the local stack) instead of being answered here. */
  passThrough?: readonly string[]
  /** Commands answered here although their client passes through: what the local stack does not implement (PutPublicAccessBlockCommand). */
  answered?: readonly string[]
  /** Requests IAM would refuse the deployer (AccessDenied), standing in for a policy: checked before passing through. */
  denied?: (command: string, input: Record<string, any>) => boolean
}

export function awsError(name: string, message = `${name} (stand-in)`): Error {
  const error = new Error(message)
  error.name = name
  return error
}

/**
 * The AWS cloud of one account, kept between deploys, as middleware after serialisation: every
 * request is built by the real SDK (so its shape is checked) and answered here as AWS answers it
 * (refusals included: MemorySize over the account's cap, a reservation that leaves fewer than 100
 * unreserved), before signing and sending.
 */
export class StandInCloud {
  readonly calls: Call[] = []
  readonly roles = new Set<string>()
  readonly objects = new Set<string>()
  readonly machines = new Map<string, string>()
  /** `<role>/<policy>` of each inline policy. */
  readonly rolePolicies = new Set<string>()
  readonly alarms = new Set<string>()
  readonly rules = new Set<string>()
  readonly logGroups = new Set<string>()
  fn?: {memoryMb: number; codeSha256: string; reserved?: number; versions: {version: string; codeSha256: string; memoryMb: number}[]; published: number; alias?: string}

  constructor(readonly account: AccountShape) {}

  get commands(): string[] {
    return this.calls.map((call) => call.command.replace(/Command$/, ''))
  }

  plugin(): Pluggable<any, any> {
    return {
      applyToStack: (stack) => {
        stack.add(
          (next, context) => async (args) => {
            const command = context.commandName as string
            if (this.account.denied?.(command.replace(/Command$/, ''), args.input as Record<string, any>)) throw awsError('AccessDenied', 'Access Denied (stand-in policy)')
            const passes = this.account.passThrough?.some((name) => name === context.clientName || name === command) && !this.account.answered?.includes(command)
            if (passes) return next(args)
            const request = args.request as {method: string; path: string}
            this.calls.push({command, input: args.input as Record<string, unknown>, request: {method: request.method, path: request.path}})
            return {output: {$metadata: {httpStatusCode: 200}, ...this.answer(command.replace(/Command$/, ''), args.input as Record<string, any>)}, response: {}}
          },
          {step: 'build', priority: 'low', name: 'standInCloud'},
        )
      },
    }
  }

  private answer(command: string, input: Record<string, any>): Record<string, unknown> {
    const {accountId, region} = this.account
    const fnArn = (name: string) => `arn:aws:lambda:${region}:${accountId}:function:${name}`
    switch (command) {
      case 'GetCallerIdentity':
        return {Account: accountId, Arn: `arn:aws:iam::${accountId}:user/deployer`}
      case 'GetAccountSettings': {
        const reserved = this.fn?.reserved ?? 0
        return {AccountLimit: {ConcurrentExecutions: this.account.concurrency, UnreservedConcurrentExecutions: this.account.concurrency - reserved}}
      }
      case 'GetRole':
        if (!this.roles.has(input.RoleName)) throw awsError('NoSuchEntityException')
        return {Role: {Arn: `arn:aws:iam::${accountId}:role/${input.RoleName}`}}
      case 'CreateRole':
        this.roles.add(input.RoleName)
        return {Role: {Arn: `arn:aws:iam::${accountId}:role/${input.RoleName}`, RoleName: input.RoleName}}
      case 'HeadObject':
        if (!this.objects.has(input.Key)) throw awsError('NotFound')
        return {}
      case 'PutObject':
        this.objects.add(input.Key)
        this.account.swapped?.delete(input.Key)
        return {}
      case 'GetFunction':
        if (!this.fn) throw awsError('ResourceNotFoundException', `Function not found: ${fnArn(input.FunctionName)}`)
        return {
          Configuration: {FunctionName: input.FunctionName, MemorySize: this.fn.memoryMb, CodeSha256: this.fn.codeSha256, State: 'Active', LastUpdateStatus: 'Successful'},
          ...(this.fn.reserved !== undefined && {Concurrency: {ReservedConcurrentExecutions: this.fn.reserved}}),
        }
      case 'CreateFunction':
        this.checkMemory(input.MemorySize)
        this.fn = {memoryMb: input.MemorySize, codeSha256: this.codeAt(input.Code.S3Key), versions: [], published: 0}
        return {FunctionName: input.FunctionName, FunctionArn: fnArn(input.FunctionName), CodeSha256: this.fn.codeSha256}
      case 'UpdateFunctionCode':
        this.fn!.codeSha256 = this.codeAt(input.S3Key)
        return {CodeSha256: this.fn!.codeSha256}
      case 'UpdateFunctionConfiguration':
        this.checkMemory(input.MemorySize)
        this.fn!.memoryMb = input.MemorySize
        return {}
      case 'PublishVersion': {
        const fn = this.fn!
        if (input.CodeSha256 !== fn.codeSha256) throw awsError('PreconditionFailedException', 'CodeSha256 does not match the function')
        const last = fn.versions.at(-1)
        // Lambda publishes nothing new for an unchanged function: it answers with the latest version.
        if (last && last.codeSha256 === fn.codeSha256 && last.memoryMb === fn.memoryMb) return {Version: last.version}
        // Numbers are never reused, even after a version is deleted.
        const version = String(++fn.published)
        fn.versions.push({version, codeSha256: fn.codeSha256, memoryMb: fn.memoryMb})
        return {Version: version, FunctionArn: `${fnArn(input.FunctionName)}:${version}`}
      }
      case 'ListVersionsByFunction':
        return {
          Versions: [
            {Version: '$LATEST', FunctionArn: fnArn(input.FunctionName)},
            ...this.fn!.versions.map((v) => ({Version: v.version, FunctionArn: `${fnArn(input.FunctionName)}:${v.version}`, MemorySize: v.memoryMb, CodeSha256: v.codeSha256, Architectures: ['x86_64']})),
          ],
        }
      case 'DeleteFunction':
        if (!this.fn) throw awsError('ResourceNotFoundException', `Function not found: ${fnArn(input.FunctionName)}`)
        // Unqualified: the function with every version and alias (lambda destroy).
        if (input.Qualifier === undefined) {
          this.fn = undefined
          return {}
        }
        if (input.Qualifier === this.fn.alias) throw awsError('ResourceConflictException', 'the stand-in deletes only versions no alias names')
        this.fn!.versions = this.fn!.versions.filter((v) => v.version !== input.Qualifier)
        return {}
      case 'GetAlias':
        if (!this.fn?.alias) throw awsError('ResourceNotFoundException', 'Alias not found')
        return {Name: input.Name, FunctionVersion: this.fn.alias}
      case 'DeleteAlias':
        if (!this.fn?.alias) throw awsError('ResourceNotFoundException', 'Alias not found')
        delete this.fn.alias
        return {}
      case 'CreateAlias':
      case 'UpdateAlias':
        this.fn!.alias = input.FunctionVersion
        return {}
      case 'PutFunctionConcurrency': {
        const unreserved = this.account.concurrency - (this.fn?.reserved ?? 0)
        if (unreserved - input.ReservedConcurrentExecutions < 100) {
          throw awsError('InvalidParameterValueException', "Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [100].")
        }
        this.fn!.reserved = input.ReservedConcurrentExecutions
        return {ReservedConcurrentExecutions: input.ReservedConcurrentExecutions}
      }
      case 'DeleteFunctionConcurrency':
        delete this.fn!.reserved
        return {}
      case 'DescribeStateMachine':
        if (!this.machines.has(input.stateMachineArn)) throw awsError('StateMachineDoesNotExist')
        return {stateMachineArn: input.stateMachineArn, definition: this.machines.get(input.stateMachineArn)}
      case 'CreateStateMachine': {
        const arn = `arn:aws:states:${region}:${accountId}:stateMachine:${input.name}`
        this.machines.set(arn, input.definition)
        return {stateMachineArn: arn}
      }
      case 'UpdateStateMachine':
        this.machines.set(input.stateMachineArn, input.definition)
        return {}
      case 'PutRolePolicy':
        this.rolePolicies.add(`${input.RoleName}/${input.PolicyName}`)
        return {}
      case 'DeleteRolePolicy':
        if (!this.rolePolicies.delete(`${input.RoleName}/${input.PolicyName}`)) throw awsError('NoSuchEntityException', `The role policy with name ${input.PolicyName} cannot be found.`)
        return {}
      case 'CreateLogGroup':
        if (this.logGroups.has(input.logGroupName)) throw awsError('ResourceAlreadyExistsException', 'The specified log group already exists')
        this.logGroups.add(input.logGroupName)
        return {}
      case 'DeleteLogGroup':
        if (!this.logGroups.delete(input.logGroupName)) throw awsError('ResourceNotFoundException', 'The specified log group does not exist.')
        return {}
      case 'PutMetricAlarm':
        this.alarms.add(input.AlarmName)
        return {}
      case 'DeleteAlarms':
        if (!(input.AlarmNames as string[]).some((name) => this.alarms.has(name))) throw awsError('ResourceNotFound', 'None of the alarms exist')
        for (const name of input.AlarmNames) this.alarms.delete(name)
        return {}
      case 'PutRule':
        this.rules.add(input.Name)
        return {RuleArn: `arn:aws:events:${region}:${accountId}:rule/${input.Name}`}
      case 'DeleteRule':
        this.rules.delete(input.Name)
        return {}
      case 'DeleteRole':
        if ([...this.rolePolicies].some((policy) => policy.startsWith(`${input.RoleName}/`))) throw awsError('DeleteConflictException', 'Cannot delete entity, must delete policies first.')
        if (!this.roles.delete(input.RoleName)) throw awsError('NoSuchEntityException', `The role with name ${input.RoleName} cannot be found.`)
        return {}
      case 'DeleteStateMachine':
        if (!this.machines.delete(input.stateMachineArn)) throw awsError('StateMachineDoesNotExist')
        return {}
      case 'ListObjectsV2':
        return {Contents: [...this.objects].filter((key) => key.startsWith(input.Prefix ?? '')).map((Key) => ({Key}))}
      case 'DeleteObjects':
        for (const {Key} of input.Delete.Objects) this.objects.delete(Key)
        return {Deleted: input.Delete.Objects}
      case 'ListTargetsByRule':
        if (!this.rules.has(input.Rule)) throw awsError('ResourceNotFoundException', `Rule ${input.Rule} does not exist.`)
        // The execution-end rule's one target, the live alias (deploy put it there).
        return {Targets: [{Id: 'live-alias', Arn: `${fnArn('engine-render')}:live`}]}
      default:
        return {}
    }
  }

  private checkMemory(memoryMb: number): void {
    if (memoryMb > this.account.memoryCapMb) {
      throw awsError('InvalidParameterValueException', `'MemorySize' value failed to satisfy constraint: Member must have value less than or equal to ${this.account.memoryCapMb}`)
    }
  }

  private codeAt(key: string): string {
    if (this.account.swapped?.has(key)) return Buffer.from('another bundle').toString('base64')
    const prefix = /function-([0-9a-f]{16})\.zip$/.exec(key)?.[1]
    return (prefix && this.account.codeHashes.get(prefix)) ?? 'unknown'
  }
}
