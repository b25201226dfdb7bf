import pkg from '../package.json' with { type: 'json' };

/**
 * The service's release version: package.json is its one source. MCP's serverInfo, the OpenAPI
 * document and the Concierge-Version header on every response all show it.
 */
export const VERSION: string = pkg.version;
