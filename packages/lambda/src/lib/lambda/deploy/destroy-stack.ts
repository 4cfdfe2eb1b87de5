import {CloudWatchClient, DeleteAlarmsCommand} from '@aws-sdk/client-cloudwatch'
import {CloudWatchLogsClient, DeleteLogGroupCommand} from '@aws-sdk/client-cloudwatch-logs'
import {EventBridgeClient, DeleteRuleCommand, RemoveTargetsCommand, ListTargetsByRuleCommand} from '@aws-sdk/client-eventbridge'
import {DeleteRoleCommand, DeleteRolePolicyCommand, IAMClient} from '@aws-sdk/client-iam'
import {DeleteAliasCommand, DeleteFunctionCommand, LambdaClient} from '@aws-sdk/client-lambda'
import {DeleteBucketCommand} from '@aws-sdk/client-s3'
import {DeleteStateMachineCommand} from '@aws-sdk/client-sfn'
import {GetCallerIdentityCommand, STSClient} from '@aws-sdk/client-sts'
import {EngineError} from 'html-video-engine/internal/lib/errors/engine-error.js'
import {clientConfig, createS3Client, createSfnClient, withPlugins, type AwsClientOptions, type ClientPlugin} from '../aws-clients.js'
import {BucketObjects} from '../s3-objects.js'
import {STACK_RECORD_KEY} from '../stack-record.js'
import {executionEndRuleName} from './execution-end-rule-deploy.js'
import {DEPLOY_PREFIX} from './stack-roles.js'
import {stackResources} from './stack-resources.js'

export interface DestroyStackOptions extends AwsClientOptions {
  name?: string
  bucketName?: string
  /** Also empty and delete the bucket: renders, sites and batches in it go too. */
  deleteBucket?: boolean
  plugins?: readonly ClientPlugin[]
  onStep?: (message: string) => void
  /**
   * With deleteBucket, asked before anything is deleted, with what the bucket holds (objects by
   * top-level folder); false deletes nothing.
   */
  confirmBucket?: (bucket: {bucketName: string; objects: number; byFolder: Record<string, number>}) => Promise<boolean>
}

export interface DestroyedStack {
  /** What this run deleted ("role engine-render-function"), in order; what was already gone is not listed. */
  deleted: string[]
  bucketName: string
  /** Objects deleted from the bucket: the deployer's own (code, stack record), or all with deleteBucket. */
  objectsDeleted: number
  bucketDeleted: boolean
}

/** Errors that mean "already gone": destroy can run again after a partial run. */
const GONE = /NotFound|NoSuchEntity|DoesNotExist|NoSuchBucket|ResourceNotFound/

function gone<T>(fallback: T): (error: Error) => T {
  return (error) => {
    if (GONE.test(error.name)) return fallback
    throw error
  }
}

/**
 * Removes what `engine lambda deploy` created, in the reverse of its order: alarms, the
 * execution-end rule, both workflows, the log group, the alias and the function (all its versions),
 * the two roles and their policies, and the deployer's objects in the bucket (the code and the
 * stack record). The bucket stays, with the renders, sites and batches in it, unless `deleteBucket`
 * (which empties and deletes it). Anything already gone is passed over.
 */
export async function destroyStack(options: DestroyStackOptions): Promise<DestroyedStack> {
  const step = options.onStep ?? (() => {})
  const config = clientConfig(options)
  const use = withPlugins(options.plugins)
  const lambda = use(new LambdaClient(config))
  const region = await lambda.config.region()
  const identity = await use(new STSClient(config)).send(new GetCallerIdentityCommand({}))
  const resources = stackResources({region, accountId: identity.Account!, name: options.name, bucketName: options.bucketName})
  const name = resources.function.FunctionName
  const s3 = use(createS3Client(options))
  const bucketName = resources.bucket.Bucket
  const bucket = new BucketObjects(s3, bucketName)
  const everything = options.deleteBucket ? await bucket.listKeys('').catch(gone([] as string[])) : []
  if (options.deleteBucket && options.confirmBucket) {
    const byFolder: Record<string, number> = {}
    for (const key of everything) {
      const folder = key.includes('/') ? `${key.split('/')[0]}/` : key
      byFolder[folder] = (byFolder[folder] ?? 0) + 1
    }
    if (!(await options.confirmBucket({bucketName, objects: everything.length, byFolder}))) {
      throw new EngineError('CANCELLED', `lambda destroy: nothing was deleted; without --delete-bucket it keeps ${bucketName} and what is in it`, {bucketName})
    }
  }
  const deleted: string[] = []
  const attempt = async (what: string, call: () => Promise<unknown>) => {
    step(what)
    const done = await call().then(() => true, gone(false))
    if (done) deleted.push(what)
  }

  const cloudwatch = use(new CloudWatchClient(config))
  await attempt(`alarms ${resources.alarms.map((alarm) => alarm.AlarmName).join(', ')}`, () => cloudwatch.send(new DeleteAlarmsCommand({AlarmNames: resources.alarms.map((alarm) => alarm.AlarmName)})))
  const events = use(new EventBridgeClient(config))
  const rule = executionEndRuleName(name)
  await attempt(`rule ${rule}`, async () => {
    const targets = await events.send(new ListTargetsByRuleCommand({Rule: rule}))
    const ids = (targets.Targets ?? []).map((target) => target.Id!).filter(Boolean)
    if (ids.length > 0) await events.send(new RemoveTargetsCommand({Rule: rule, Ids: ids}))
    await events.send(new DeleteRuleCommand({Name: rule}))
  })
  const sfn = use(createSfnClient(options))
  // The batch workflow first: it names the render workflow.
  for (const machine of [resources.batchStateMachine, resources.stateMachine]) {
    await attempt(`state machine ${machine.name}`, () => sfn.send(new DeleteStateMachineCommand({stateMachineArn: machine.arn})))
  }
  const logs = use(new CloudWatchLogsClient(config))
  await attempt(`log group ${resources.logGroup.logGroupName}`, () => logs.send(new DeleteLogGroupCommand({logGroupName: resources.logGroup.logGroupName})))
  await attempt(`alias ${name}:${resources.alias.Name}`, () => lambda.send(new DeleteAliasCommand({FunctionName: name, Name: resources.alias.Name})))
  // Without a qualifier Lambda deletes the function with every version.
  await attempt(`function ${name} (all versions)`, () => lambda.send(new DeleteFunctionCommand({FunctionName: name})))
  const iam = use(new IAMClient(config))
  for (const role of [resources.functionRole, resources.stateMachineRole]) {
    await attempt(`policy ${role.PolicyName} of role ${role.RoleName}`, () => iam.send(new DeleteRolePolicyCommand({RoleName: role.RoleName, PolicyName: role.PolicyName})))
    await attempt(`role ${role.RoleName}`, () => iam.send(new DeleteRoleCommand({RoleName: role.RoleName})))
  }

  let objectsDeleted = 0
  let bucketDeleted = false
  step(options.deleteBucket ? `every object in ${bucketName}` : `the code and the stack record in ${bucketName}`)
  const keys = options.deleteBucket ? everything : (await Promise.all([DEPLOY_PREFIX, STACK_RECORD_KEY].map((prefix) => bucket.listKeys(prefix).catch(gone([] as string[]))))).flat()
  if (keys.length > 0) {
    await bucket.deleteKeys(keys)
    objectsDeleted = keys.length
  }
  if (options.deleteBucket) {
    await attempt(`bucket ${bucketName}`, () => s3.send(new DeleteBucketCommand({Bucket: bucketName})))
    bucketDeleted = deleted.includes(`bucket ${bucketName}`)
  }
  return {deleted, bucketName, objectsDeleted, bucketDeleted}
}
