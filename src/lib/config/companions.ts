import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {packageRoot} from '../sandbox/package-root.js'

export interface Companion {
  /** The command topic the package brings. */
  topic: string
  /** Its npm package. */
  name: string
  /** Its folder in a checkout of engine, where `npm pack -w <folder>` packs it. */
  folder: string
  /**
   * Whether the name is published on the npm registry. Until it is, no hint may name it: a name
   * nobody owns answers 404, and whoever registered it would have their code run by those who follow the hint.
   */
  published: boolean
  /** What its commands are, for the message when it is missing. */
  what: string
}

/**
 * First-party packages published beside engine that bring a command topic, kept out of the core
 * install for their size (an oclif plugin each; see packages/ in the repository). They bring
 * commands and no format or encoder hooks, so a bundle for another machine does not carry them;
 * the serverless one also provides the `s3://` batch output store (`engine:output-stores`).
 */
export const COMPANIONS: readonly Companion[] = [
  {topic: 'lambda', name: 'html-video-engine-lambda', folder: 'packages/lambda', published: false, what: 'the serverless commands: AWS Lambda + Step Functions and their local stack'},
]

export function isCompanion(packageName: string): boolean {
  return COMPANIONS.some((companion) => companion.name === packageName)
}

/** The serverless companion: the package that brings `engine lambda` and the `s3://` output store. */
export const LAMBDA_COMPANION = COMPANIONS[0]

/**
 * The command that installs a companion, one that works today: the registry name once it is
 * published; else, in a checkout of engine (the companion's folder is beside the core), linking
 * that folder; else its npm pack tarball, which a checkout makes.
 */
export function companionInstallCommand(companion: Companion, bin: string, root: string = packageRoot()): string {
  if (companion.published) return `${bin} plugins install ${companion.name}`
  const folder = join(root, companion.folder)
  if (existsSync(join(folder, 'package.json'))) return `${bin} plugins link ${folder} --no-install`
  const version = packageVersion(root)
  return `${bin} plugins install ./${companion.name}-${version}.tgz`
}

/** Where the tarball of `companionInstallCommand` comes from, when it names one. */
export function companionTarballOrigin(companion: Companion): string {
  return `made by \`npm pack -w ${companion.folder}\` in a checkout of engine`
}

/** One sentence: the command that installs the companion, and where its tarball comes from when it names one. */
export function companionInstallHint(companion: Companion, bin: string, root: string = packageRoot()): string {
  const command = companionInstallCommand(companion, bin, root)
  return command.endsWith('.tgz') ? `\`${command}\` (the tarball is ${companionTarballOrigin(companion)})` : `\`${command}\``
}

function packageVersion(root: string): string {
  try {
    return (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {version?: string}).version ?? '<version>'
  } catch {
    return '<version>'
  }
}
