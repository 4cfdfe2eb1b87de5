/**
 * The entry of the Lambda bundle (`engine lambda bundle` builds it into handler.mjs): prepares the
 * environment and registers the bundled plugins once per cold start, then runs the one handler.
 */
import * as pluginApi from 'html-video-engine/internal/plugin/api.js'
import {handler as renderHandler, type LambdaContext} from './handler.js'
import {prepareLambdaEnvironment} from './runtime/lambda-environment.js'
import {registerBundledPlugins} from './runtime/register-bundled-plugins.js'

let prepared: Promise<void> | undefined

export async function handler(event: unknown, context?: LambdaContext): Promise<unknown> {
  prepared ??= coldStart().catch((error: unknown) => {
    prepared = undefined
    throw error
  })
  await prepared
  return renderHandler(event, context)
}

async function coldStart(): Promise<void> {
  await prepareLambdaEnvironment()
  const taskRoot = process.env.LAMBDA_TASK_ROOT
  if (taskRoot) await registerBundledPlugins(taskRoot, pluginApi)
}
