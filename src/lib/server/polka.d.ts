// polka 0.5 ships no types; this covers the part the server uses.
declare module 'polka' {
  import type {IncomingMessage, Server, ServerResponse} from 'node:http'

  export interface PolkaRequest extends IncomingMessage {
    params: Record<string, string>
    path: string
  }

  export type Next = (error?: unknown) => void
  export type Handler = (req: PolkaRequest, res: ServerResponse, next: Next) => void

  export interface PolkaOptions {
    server?: Server
    onError?: (error: unknown, req: PolkaRequest, res: ServerResponse, next: Next) => void
    onNoMatch?: (req: PolkaRequest, res: ServerResponse) => void
  }

  export interface Polka {
    readonly handler: (req: IncomingMessage, res: ServerResponse) => void
    use(...handlers: Handler[]): Polka
    get(pattern: string, ...handlers: Handler[]): Polka
    head(pattern: string, ...handlers: Handler[]): Polka
    post(pattern: string, ...handlers: Handler[]): Polka
    delete(pattern: string, ...handlers: Handler[]): Polka
  }

  export default function polka(options?: PolkaOptions): Polka
}
