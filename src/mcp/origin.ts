import type { Config } from '../config.ts';

// Browsers send Origin; an unknown one is refused so a web page cannot drive a credential that
// a local agent holds (the MCP transport's DNS-rebinding guidance). Requests without Origin come
// from servers and native clients, which CORS does not concern.

/** The service's own origin and the configured MCP_ALLOWED_ORIGINS. */
export function allowedOrigins(config: Pick<Config, 'BASE_URL' | 'MCP_ALLOWED_ORIGINS'>): ReadonlySet<string> {
  return new Set([new URL(config.BASE_URL).origin, ...config.MCP_ALLOWED_ORIGINS]);
}

/** Headers every answer to an allowed browser origin carries. */
export function corsHeaders(origin: string): Record<string, string> {
  return {
    'access-control-allow-origin': origin,
    // A browser must see why it was refused (401/403) and any session id.
    'access-control-expose-headers': 'WWW-Authenticate, Mcp-Session-Id',
    vary: 'Origin',
  };
}

/** The answer to a CORS preflight from an allowed origin. */
export const PREFLIGHT_HEADERS: Record<string, string> = {
  'access-control-allow-methods': 'POST',
  'access-control-allow-headers': 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-ID',
  'access-control-max-age': '600',
};
