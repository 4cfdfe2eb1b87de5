import {Flags} from '@oclif/core'
import {BaseCommand} from 'html-video-engine/internal/cli/base-command.js'
import {DEFAULT_STACK_NAME} from '../../lib/lambda/deploy/stack-resources.js'
import {readQuotas} from '../../lib/lambda/deploy/read-quotas.js'

export default class LambdaQuotas extends BaseCommand {
  static override summary = 'Show the Lambda limits that bound a distributed render'
  static override description =
    "The account's concurrent executions and what is left unreserved, and the render function's reserved concurrency, memory and timeout: " +
    'how many chunks can run at once (chunks above it wait for a slot). Needs lambda:GetFunctionConfiguration and lambda:GetFunctionConcurrency on the function and ' +
    'lambda:GetAccountSettings, which AWS grants only on Resource "*": the policy `lambda policies user` prints has all three. Works against `engine lambda local` too.'
  static override examples = ['<%= config.bin %> lambda quotas', '<%= config.bin %> lambda quotas --region eu-west-1 --json']
  static override flags = {
    name: Flags.string({description: 'name of the render function', default: DEFAULT_STACK_NAME}),
    region: Flags.string({description: 'AWS region (default: from the environment)'}),
    endpoint: Flags.string({description: 'AWS endpoint URL', env: 'ENGINE_AWS_ENDPOINT'}),
    json: Flags.boolean({description: 'machine-readable output'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(LambdaQuotas)
    const quotas = await readQuotas({functionName: flags.name, region: flags.region, endpoint: flags.endpoint})
    if (flags.json) {
      this.log(JSON.stringify(quotas))
      return
    }
    const fn = quotas.function
    this.log(`Region ${quotas.region}: ${quotas.accountConcurrency} concurrent executions in the account, ${quotas.unreservedConcurrency} unreserved`)
    this.log(
      fn.deployed
        ? `Function ${fn.name}: ${fn.reservedConcurrency === undefined ? 'no reserved concurrency (draws from the unreserved pool)' : `reserved concurrency ${fn.reservedConcurrency}`}, ${fn.memoryMb} MB, timeout ${fn.timeoutSeconds} s`
        : `Function ${fn.name}: not deployed here (\`engine lambda deploy\`)`,
    )
    this.log(`Chunks that can run at once: ${quotas.parallelChunks}; a render with more waits for free slots (--max-parallel-chunks sets fewer)`)
  }
}
