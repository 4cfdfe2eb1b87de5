/** What a composition's page may reach beyond its project and the engine's own files. */
export interface NetworkSettings {
  /** Public http(s) URLs, fetched by the engine through its download cache (`--no-network` clears it). */
  publicUrls: boolean
  /** Loopback, private and link-local addresses (`--allow-private-network`; never on the server). */
  privateAddresses: boolean
}

export const DEFAULT_NETWORK: NetworkSettings = {publicUrls: true, privateAddresses: false}
