import type {Interfaces} from '@oclif/core'
import {existsSync} from 'node:fs'
import {join} from 'node:path'
import {companionInstallHint, COMPANIONS, type Companion} from '../lib/config/companions.js'

/** The companion whose topic a command line starts with, when that companion is not installed. */
export function missingCompanion(word: string | undefined, config: Interfaces.Config): Companion | undefined {
  const companion = COMPANIONS.find((candidate) => candidate.topic === word)
  if (!companion) return undefined
  const installed = config.commands.some((command) => command.id === companion.topic || command.id.startsWith(`${companion.topic}:`))
  return installed ? undefined : companion
}

/** One line: what is missing and the exact command that installs it. */
export function missingCompanionMessage(companion: Companion, bin: string): string {
  return `\`${bin} ${companion.topic}\` (${companion.what}) comes with the package ${companion.name}, which is not installed: install it with ${companionInstallHint(companion, bin)}`
}

/**
 * Whether the companions are installed beside the core as in this repository's checkout, where
 * they are devDependencies that oclif loads as dev plugins (NODE_ENV development or test). An
 * installed core lists them too but has none: oclif would warn that it cannot find them.
 */
export function companionsBeside(root: string): boolean {
  return COMPANIONS.every((companion) => existsSync(join(root, 'node_modules', companion.name, 'package.json')))
}
