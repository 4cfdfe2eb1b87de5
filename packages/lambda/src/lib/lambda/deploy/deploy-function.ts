import {
  CreateAliasCommand,
  CreateFunctionCommand,
  DeleteFunctionConcurrencyCommand,
  GetAliasCommand,
  LambdaClient,
  PublishVersionCommand,
  PutFunctionConcurrencyCommand,
  UpdateAliasCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
  waitUntilFunctionActiveV2,
  waitUntilFunctionUpdatedV2,
  type FunctionConfiguration,
} from '@aws-sdk/client-lambda'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {memoryCapOf, reservationRefused, type Notice} from './account-limits.js'
import {assertCodeHash, type PreparedCode} from './deploy-code.js'
import type {DeployLedger} from './deploy-ledger.js'
import type {StackResources} from './stack-resources.js'

const WAIT = {maxWaitTime: 300}

export interface FunctionDeployment {
  lambda: LambdaClient
  resources: StackResources
  roleArn: string
  code: PreparedCode
  location: {S3Bucket: string; S3Key: string}
  /** The function as it was before this deploy (GetFunction), or undefined when there is none yet. */
  existing?: FunctionConfiguration
  /** --memory was given: a cap below it fails the deploy instead of lowering the memory. */
  memoryExplicit: boolean
  /** The reservation to set (undefined: none, the shared pool). */
  reserve?: number
  ledger: DeployLedger
  onNotice: (notice: Notice) => void
  /** Uploads the zip again (over an object whose bytes Lambda did not find to be the bundle's). */
  reupload: () => Promise<void>
  /** Retries a call while a role created moments ago is not assumable yet. */
  afterPropagation: <T>(call: () => Promise<T>) => Promise<T>
}

/** What the function became: its memory, and the version published for this deploy. */
export interface DeployedFunction {
  memoryMb: number
  version: string
  /** The version the alias named before (undefined on a first deploy). */
  previousVersion?: string
  reservedConcurrency?: number
}

/**
 * Creates or updates the function (code, then settings), publishes a version of exactly this code
 * (PublishVersion with its hash) and moves the `live` alias to it, then sets or removes its
 * reserved concurrency. The workflows invoke the version, not $LATEST (see deployStack).
 */
export async function deployFunction(deployment: FunctionDeployment): Promise<DeployedFunction> {
  const {lambda, resources, ledger} = deployment
  const fn = resources.function
  const name = fn.FunctionName
  const waitFor = {client: lambda, ...WAIT}
  let memoryMb = fn.MemorySize
  const settings = () => ({
    FunctionName: name,
    Role: deployment.roleArn,
    Runtime: fn.Runtime,
    Handler: fn.Handler,
    MemorySize: memoryMb,
    Timeout: fn.Timeout,
    EphemeralStorage: fn.EphemeralStorage,
    Environment: fn.Environment,
  })
  const withMemoryCap = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call()
    } catch (error) {
      const cap = memoryCapOf(error)
      if (cap === undefined || cap >= memoryMb) throw error
      if (deployment.memoryExplicit) {
        throw new EngineError('DEPLOY_FAILED', `--memory ${memoryMb}: this account allows at most ${cap} MB per function (new accounts start at 3,008 MB; AWS Support raises it): deploy with --memory ${cap}, or without --memory`, {
          field: 'memory',
          value: memoryMb,
          cap,
        })
      }
      deployment.onNotice({code: 'memory-capped', message: `the account allows at most ${cap} MB per function: the function gets ${cap} MB instead of ${memoryMb} (fewer vCPUs: chunks take longer; AWS Support raises the cap)`})
      memoryMb = cap
      return call()
    }
  }

  if (deployment.existing) {
    const updateCode = async () => {
      const updated = await lambda.send(new UpdateFunctionCodeCommand({FunctionName: name, ...deployment.location, Architectures: fn.Architectures}))
      await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: name})
      return updated.CodeSha256
    }
    if (deployment.existing.CodeSha256 !== lambdaHash(deployment.code)) {
      let reported = await updateCode()
      if (reported !== lambdaHash(deployment.code)) {
        await deployment.reupload()
        reported = await updateCode()
      }
      assertCodeHash(reported, deployment.code, deployment.location.S3Key)
      ledger.changed(`the code of function ${name}`)
    }
    await withMemoryCap(() => lambda.send(new UpdateFunctionConfigurationCommand(settings())))
    await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: name})
    ledger.changed(`the settings of function ${name}`)
  } else {
    const create = () => deployment.afterPropagation(() => lambda.send(new CreateFunctionCommand({...settings(), Architectures: fn.Architectures, Code: deployment.location})))
    let created = await withMemoryCap(create)
    ledger.created(`function ${name}`)
    await waitUntilFunctionActiveV2(waitFor, {FunctionName: name})
    if (created.CodeSha256 !== lambdaHash(deployment.code)) {
      await deployment.reupload()
      created = await lambda.send(new UpdateFunctionCodeCommand({FunctionName: name, ...deployment.location, Architectures: fn.Architectures}))
      await waitUntilFunctionUpdatedV2(waitFor, {FunctionName: name})
    }
    assertCodeHash(created.CodeSha256, deployment.code, deployment.location.S3Key)
  }

  const previousVersion = await lambda
    .send(new GetAliasCommand({FunctionName: name, Name: resources.alias.Name}))
    .then((alias) => alias.FunctionVersion)
    .catch((error: Error) => {
      if (error.name === 'ResourceNotFoundException') return undefined
      throw error
    })
  // Publishing an unchanged function returns its latest version instead of a new one.
  const published = await lambda.send(new PublishVersionCommand({FunctionName: name, CodeSha256: lambdaHash(deployment.code), Description: `engine deploy ${new Date().toISOString()}`}))
  const version = published.Version!
  if (version !== previousVersion) ledger.created(`version ${version} of function ${name}`)
  await waitUntilFunctionActiveV2(waitFor, {FunctionName: name, Qualifier: version})
  if (previousVersion === undefined) await lambda.send(new CreateAliasCommand({FunctionName: name, Name: resources.alias.Name, FunctionVersion: version}))
  else if (previousVersion !== version) await lambda.send(new UpdateAliasCommand({FunctionName: name, Name: resources.alias.Name, FunctionVersion: version}))
  if (previousVersion !== version) ledger.changed(`alias ${resources.alias.Name} of ${name} (now version ${version})`)

  const reservedConcurrency = await setReservation(lambda, name, deployment.reserve, deployment.onNotice)
  return {memoryMb, version, previousVersion, reservedConcurrency}
}

async function setReservation(lambda: LambdaClient, name: string, reserve: number | undefined, onNotice: (notice: Notice) => void): Promise<number | undefined> {
  if (reserve === undefined) {
    await lambda.send(new DeleteFunctionConcurrencyCommand({FunctionName: name}))
    return undefined
  }
  try {
    await lambda.send(new PutFunctionConcurrencyCommand({FunctionName: name, ReservedConcurrentExecutions: reserve}))
    return reserve
  } catch (error) {
    const refused = reservationRefused(error, reserve)
    if (!refused) throw error
    onNotice(refused)
    await lambda.send(new DeleteFunctionConcurrencyCommand({FunctionName: name}))
    return undefined
  }
}

const lambdaHash = (code: PreparedCode) => Buffer.from(code.sha256, 'hex').toString('base64')
