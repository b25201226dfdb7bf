// oidc-provider ships no type declarations; this covers the part the service uses (the development
// identity provider, and the benchmark's reference server).
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, unknown>;
    session?: { accountId?: string };
    grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(resource: string, scope: string): void;
    save(ttl?: number): Promise<string>;
    jti: string;
  }

  export interface BaseToken {
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    issuer: string;
    proxy: boolean;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<string>;
    on(event: string, listener: (...args: unknown[]) => void): this;
    /** Koa middleware, run before the provider's own routes. */
    use(middleware: (ctx: { status: number; body: unknown; type: string }, next: () => Promise<void>) => Promise<void>): this;
    Grant: {
      new (properties: { accountId: string; clientId: string }): GrantInstance;
      find(id: string): Promise<GrantInstance | undefined>;
    };
    RefreshToken: new (properties: Record<string, unknown>) => BaseToken;
    Client: { find(id: string): Promise<unknown> };
  }
}
