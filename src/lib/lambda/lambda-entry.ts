/**
 * The entry of the Lambda bundle (`engine lambda bundle` builds it into handler.mjs): prepares the
 * environment once per cold start, then runs the one handler.
 */
import {handler as renderHandler, type LambdaContext} from './handler.js'
import {prepareLambdaEnvironment} from './runtime/lambda-environment.js'

let prepared: Promise<void> | undefined

export async function handler(event: unknown, context?: LambdaContext): Promise<unknown> {
  prepared ??= prepareLambdaEnvironment().catch((error: unknown) => {
    prepared = undefined
    throw error
  })
  await prepared
  return renderHandler(event, context)
}
