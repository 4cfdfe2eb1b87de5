import {Flags} from '@oclif/core'
import {loadConfig, type LoadedConfig} from '../lib/config/load-config.js'
import {projectConfigTrusted, TRUST_PROJECT_CONFIG_ENV} from '../lib/config/project-trust.js'

/** `--trust-project-config`, on every command that reads the project's config. */
export const trustProjectConfigFlag = {
  'trust-project-config': Flags.boolean({
    description: `run a JavaScript engine.config, accept browserPath / allowPrivateNetwork and paths outside the project (output, batch, variablesFile) from the project's config (a project you trust; also ${TRUST_PROJECT_CONFIG_ENV}=1)`,
  }),
  config: Flags.string({description: 'read this config file instead of searching for .enginerc, engine.config.* and the others (`engine config` shows what applies)'}),
}

/** The nearest project config, read as data unless the user trusts project configs. */
export async function loadProjectConfig(flag: boolean | undefined, userConfigDir: string, file?: string): Promise<LoadedConfig> {
  return loadConfig(process.cwd(), {trusted: await projectConfigTrusted({flag, userConfigDir}), file})
}
