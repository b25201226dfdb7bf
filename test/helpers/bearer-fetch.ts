// Preloaded (node --import) into the MCP Inspector's CLI process by test/mcp/inspector.test.ts.
// Inspector 0.15's CLI mode has no option for request headers, so the
// test supplies the bearer credential the way a header option would: on every fetch it makes.
const bearer = process.env.MCP_TEST_BEARER;
const originalFetch = globalThis.fetch;

globalThis.fetch = (input: string | URL | Request, init: RequestInit = {}) => {
  const headers = new Headers(init.headers ?? (input instanceof Request ? input.headers : undefined));
  if (bearer && !headers.has('authorization')) headers.set('authorization', `Bearer ${bearer}`);
  return originalFetch(input, { ...init, headers });
};
