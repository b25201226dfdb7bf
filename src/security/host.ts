// Host names as configured (MCP_ALLOWED_HOSTS) and as requested (the Host header) are compared
// in one spelling, so that neither case, punycode nor a trailing dot tells them apart.

/**
 * The host name in a Host header value or an MCP_ALLOWED_HOSTS entry, as a URL parser writes it
 * (lower case, punycode, IPv6 in brackets, no trailing dot), and whether a port came with it; null
 * when the value is not `host[:port]`.
 */
export function parseHost(value: string | undefined): { hostname: string; hasPort: boolean } | null {
  if (value === undefined || value === '' || /[\s/\\?#@]/.test(value)) return null;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return null;
  }
  if (!/^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)$/.test(url.hostname)) return null;
  return { hostname: url.hostname.replace(/\.$/, ''), hasPort: /(^[^[]*|\]):[0-9]*$/.test(value) };
}
