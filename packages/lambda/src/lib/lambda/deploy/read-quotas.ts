import {GetAccountSettingsCommand, GetFunctionConcurrencyCommand, GetFunctionConfigurationCommand, LambdaClient} from '@aws-sdk/client-lambda'
import {clientConfig, type AwsClientOptions} from '../aws-clients.js'
import {awsFailure} from '../aws-errors.js'
import {DEFAULT_STACK_NAME} from './stack-resources.js'

/** What bounds a distributed render in this account and region. */
export interface LambdaQuotas {
  region: string
  /** The account's concurrent executions, for every function together. */
  accountConcurrency: number
  /** What is left for functions without reserved concurrency. */
  unreservedConcurrency: number
  function: {
    name: string
    /** Absent when the function draws from the unreserved pool (or is not deployed). */
    reservedConcurrency?: number
    memoryMb?: number
    timeoutSeconds?: number
    deployed: boolean
  }
  /** Chunks that can run at once: the reserved concurrency, else the unreserved pool. */
  parallelChunks: number
}

/**
 * Reads the account's Lambda limits and the render function's settings (`lambda:GetAccountSettings`,
 * `GetFunctionConcurrency`, `GetFunctionConfiguration`), so a user can see before a render how many
 * chunks can run at once instead of finding out from throttling.
 */
export async function readQuotas(options: AwsClientOptions & {functionName?: string} = {}): Promise<LambdaQuotas> {
  const lambda = new LambdaClient(clientConfig(options))
  const name = options.functionName ?? DEFAULT_STACK_NAME
  try {
    const region = await lambda.config.region()
    const account = await lambda.send(new GetAccountSettingsCommand({}))
    const configuration = await lambda.send(new GetFunctionConfigurationCommand({FunctionName: name})).catch((error: Error) => {
      if (error.name === 'ResourceNotFoundException') return undefined
      throw error
    })
    const concurrency = configuration ? await lambda.send(new GetFunctionConcurrencyCommand({FunctionName: name})) : undefined
    const accountConcurrency = account.AccountLimit?.ConcurrentExecutions ?? 0
    const unreservedConcurrency = account.AccountLimit?.UnreservedConcurrentExecutions ?? accountConcurrency
    const reservedConcurrency = concurrency?.ReservedConcurrentExecutions
    return {
      region,
      accountConcurrency,
      unreservedConcurrency,
      function: {
        name,
        deployed: configuration !== undefined,
        ...(reservedConcurrency !== undefined && {reservedConcurrency}),
        ...(configuration?.MemorySize !== undefined && {memoryMb: configuration.MemorySize}),
        ...(configuration?.Timeout !== undefined && {timeoutSeconds: configuration.Timeout}),
      },
      parallelChunks: reservedConcurrency ?? unreservedConcurrency,
    }
  } catch (error) {
    throw awsFailure(error, 'reading the Lambda quotas', {endpoint: options.endpoint})
  }
}
