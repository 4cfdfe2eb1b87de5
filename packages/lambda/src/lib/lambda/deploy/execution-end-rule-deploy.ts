import {PutRuleCommand, PutTargetsCommand, type EventBridgeClient} from '@aws-sdk/client-eventbridge'
import {AddPermissionCommand, type LambdaClient} from '@aws-sdk/client-lambda'
import {EXECUTION_END_INPUT_TRANSFORMER, executionEndPattern} from '../runtime/execution-end-rule.js'

/** The rule's name, beside the stack's other resources. */
export const executionEndRuleName = (stackName: string) => `${stackName}-execution-ended`
const PERMISSION_ID = 'engine-execution-end-rule'

export interface ExecutionEndRuleScope {
  stackName: string
  region: string
  accountId: string
  stateMachineArn: string
  /** The function the rule invokes: its live alias, so that a deploy moves the rule with it. */
  functionName: string
  alias: string
}

/** What deploy sends for the rule: pure, so that the policies and the tests read the same names. */
export function executionEndRuleRequests(scope: ExecutionEndRuleScope) {
  const name = executionEndRuleName(scope.stackName)
  const ruleArn = `arn:aws:events:${scope.region}:${scope.accountId}:rule/${name}`
  const targetArn = `arn:aws:lambda:${scope.region}:${scope.accountId}:function:${scope.functionName}:${scope.alias}`
  return {
    rule: {
      Name: name,
      EventPattern: JSON.stringify(executionEndPattern(scope.stateMachineArn)),
      State: 'ENABLED' as const,
      Description: 'engine: a render that ends FAILED, TIMED_OUT or ABORTED gets its failure record, webhook and clean-up',
    },
    permission: {
      FunctionName: scope.functionName,
      Qualifier: scope.alias,
      StatementId: PERMISSION_ID,
      Action: 'lambda:InvokeFunction',
      Principal: 'events.amazonaws.com',
      SourceArn: ruleArn,
    },
    targets: {Rule: name, Targets: [{Id: 'render-function', Arn: targetArn, InputTransformer: {...EXECUTION_END_INPUT_TRANSFORMER, InputPathsMap: {...EXECUTION_END_INPUT_TRANSFORMER.InputPathsMap}}}]},
    ruleArn,
  }
}

/**
 * The execution-end rule (see runtime/execution-end-rule.ts): EventBridge sends each render
 * execution that ends FAILED, TIMED_OUT or ABORTED to the function, which no Catch of the
 * workflow does for a timeout or a stop. Idempotent: a deploy again rewrites the rule and target,
 * and finds the invoke permission in place.
 */
export async function ensureExecutionEndRule(events: EventBridgeClient, lambda: LambdaClient, scope: ExecutionEndRuleScope): Promise<void> {
  const requests = executionEndRuleRequests(scope)
  await events.send(new PutRuleCommand(requests.rule))
  await lambda.send(new AddPermissionCommand(requests.permission)).catch((error: Error) => {
    if (error.name !== 'ResourceConflictException') throw error
  })
  await events.send(new PutTargetsCommand(requests.targets))
}
