import type { Config } from '../config.ts';
import { parseHost } from '../security/host.ts';

// Two checks keep a web page from driving /api/mcp through someone's browser (the MCP transport's
// DNS-rebinding guidance):
// - Host: a page whose own name an attacker has pointed at this service (DNS rebinding) reaches it
//   with Host set to that name. Only BASE_URL's host name, the loopback names and MCP_ALLOWED_HOSTS
//   are answered. Any port: the name is what a rebinding attack cannot fake.
// - Origin: browsers send it; an unknown one is refused. Requests without Origin come from servers
//   and native clients, which CORS does not concern.

/** Names a loopback listener is reached by; a rebinding attack's name is never one of them. */
const LOOPBACK_HOSTNAMES = ['localhost', '127.0.0.1', '[::1]'];

/** The host names /api/mcp answers to: BASE_URL's, the loopback names and the configured MCP_ALLOWED_HOSTS. */
export function allowedHostnames(config: Pick<Config, 'BASE_URL' | 'MCP_ALLOWED_HOSTS'>): ReadonlySet<string> {
  const own = parseHost(new URL(config.BASE_URL).host)?.hostname;
  return new Set([...(own ? [own] : []), ...LOOPBACK_HOSTNAMES, ...config.MCP_ALLOWED_HOSTS]);
}

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
