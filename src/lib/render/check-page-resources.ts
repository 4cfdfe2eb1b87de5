import type {CompiledComposition} from '../compose/compile-composition.js'
import {unloadableMessage, VENDOR_DOCS} from '../compose/find-unloadable-resources.js'
import {EngineError} from '../errors/engine-error.js'
import type {NetworkSettings} from '../sandbox/network-settings.js'

/**
 * Before a browser starts: a script or stylesheet the render's network rules will refuse (a
 * remote one with --no-network, one on a loopback or private address without
 * --allow-private-network) fails the render with REQUEST_BLOCKED naming each URL and how to vendor
 * it, instead of the page error its missing library would cause later.
 */
export function assertResourcesLoadable(compiled: Pick<CompiledComposition, 'resources' | 'projectDir'>, network: NetworkSettings): void {
  const refused = compiled.resources.filter(
    (resource) => (resource.kind === 'refused' && !network.privateAddresses) || (resource.kind === 'remote' && !network.publicUrls),
  )
  if (refused.length === 0) return
  const lines = refused.map((resource) =>
    resource.kind === 'remote'
      ? `${resource.where} needs the network, which --no-network turns off: vendor the file into the project (see ${VENDOR_DOCS}) or render with the network on`
      : unloadableMessage(resource, compiled.projectDir),
  )
  throw new EngineError('REQUEST_BLOCKED', `the page loads ${refused.length === 1 ? 'a script or stylesheet' : 'scripts or stylesheets'} this render refuses:\n${lines.map((line) => `  - ${line}`).join('\n')}`, {
    urls: refused.map((resource) => resource.url),
  })
}
