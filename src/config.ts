import { z } from 'zod';
import { parseHost } from './security/host.ts';

// Every setting the service reads, validated once at start. A bad value stops the process with a
// message naming the variable, so an operator never learns about a typo from a failing request.
const booleanish = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

/** The origin (scheme://host[:port]) of an http(s) URL written as an origin, or null. */
function originOf(value: string): string | null {
  try {
    const url = new URL(value);
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.pathname !== '/' || url.search || url.hash || url.username) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/**
 * Why BASE_URL cannot be the OAuth issuer, or null. It is published byte for byte (RFC 8414 §3.3,
 * RFC 9207) and discovery lives at its root (/.well-known/…), so it must be a bare origin written
 * the way a URL parser writes it: no path (not even a trailing slash), query, fragment or user
 * information; lower-case host, no default port. Production needs https: session cookies are only
 * Secure (and __Host-) over https, and codes and tokens must never travel in clear.
 */
function baseUrlProblem(raw: string, production: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL like https://concierge.example.com';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
  if (production && url.protocol !== 'https:') return 'must be https:// in production (the OAuth issuer, and what makes session cookies Secure)';
  if (raw.includes('?')) return 'must not have a query: it is the OAuth issuer';
  if (raw.includes('#')) return 'must not have a fragment: it is the OAuth issuer';
  if (url.username !== '' || url.password !== '' || raw.includes('@')) return 'must not contain user information';
  if (url.pathname !== '/') return 'must not have a path: discovery is served at the root (/.well-known/…), so the service needs an origin of its own';
  if (raw.endsWith('/')) return `must not end with a slash: it is the OAuth issuer, compared byte for byte (write ${url.origin})`;
  if (url.origin !== raw) return `must be written as the origin ${url.origin} (lower-case host, no default port)`;
  return null;
}

/** A host name or IP literal as a PostgreSQL URL writes it (letters, digits, `-`, `_` in dot-separated labels, or `[IPv6]`). */
const POSTGRES_HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?)$/i;

/**
 * Why a postgres:// DATABASE_URL cannot be a database address, or null. The driver is lenient: it
 * re-encodes a stray `%` and hands whatever is left to DNS, so a typo surfaces later as a bare
 * `getaddrinfo ENOTFOUND`, which names neither the variable nor the mistake. The value itself is never
 * quoted, not even in part: it holds the password.
 */
function postgresUrlProblem(raw: string): string | null {
  const authority = /^postgres(?:ql)?:\/\/(?=.)([^/?#]*)/s.exec(raw)?.[1];
  // Not a postgres:// URL at all: the pattern above names what is expected.
  if (authority === undefined) return null;
  if (/%(?![0-9a-f]{2})/i.test(raw)) return 'has a malformed percent-encoding (a % not followed by two hex digits; write a % in the password as %25)';
  // After the last @: a password may hold an @ written as is, but never the host.
  const hostPort = authority.slice(authority.lastIndexOf('@') + 1);
  const [, host = '', port] = /^(\[[^\]]*\]|[^:]*)(?::(.*))?$/.exec(hostPort) ?? [];
  const hostParameter = /[?&]host=[^&#]/.test(raw);
  if (host === '' && !hostParameter) return 'has no host (postgres://user:password@host:5432/database)';
  if (port !== undefined && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return 'has a bad port (a number from 1 to 65535 after the host; a / ? or # in the password must be percent-encoded)';
  // A percent-encoded host starting with / is a Unix socket directory, as the driver reads it.
  if (host !== '' && !decodeURIComponent(host).startsWith('/') && !POSTGRES_HOST.test(host)) return 'has an invalid host name';
  if (!URL.canParse(raw)) return 'is not a valid URL (postgres://user:password@host:5432/database; percent-encode any reserved character in the user name or password)';
  return null;
}

/** A comma-separated list, each item normalised by `parse`; an item it refuses (null) is named, with what was `expected`. */
function commaList(parse: (item: string) => string | null, expected: string) {
  return z
    .string()
    .default('')
    .transform((list, ctx) => {
      const items: string[] = [];
      for (const item of list.split(',').map((s) => s.trim()).filter(Boolean)) {
        const parsed = parse(item);
        if (parsed === null) {
          ctx.addIssue({ code: 'custom', message: `"${item}" is not ${expected}` });
          return z.NEVER;
        }
        items.push(parsed);
      }
      return items;
    });
}

/** An operator's sign-in email: something@something, no spaces or angle brackets (it is compared, not mailed). */
const OPERATOR_EMAIL = /^[^\s@<>",]{1,64}@[^\s@<>",]{1,190}$/;

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  // Browser origins allowed to call /api/mcp besides BASE_URL's own (comma-separated); any other
  // Origin is refused, which keeps a web page from driving the credentials of a local agent.
  MCP_ALLOWED_ORIGINS: commaList(originOf, 'an origin like https://app.example.com'),
  // Host names /api/mcp answers to besides BASE_URL's and the loopback names (comma-separated, no
  // port): the name a reverse proxy forwards in Host when it is not the public one. Any other Host
  // is refused, which defeats DNS rebinding.
  MCP_ALLOWED_HOSTS: commaList((item) => {
    const host = parseHost(item);
    return host && !host.hasPort ? host.hostname : null;
  }, 'a host name like concierge.internal (no scheme, no port)'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/.+|pglite:.*)$/, 'must be postgres://… or pglite:<dir> (pglite:memory: for an in-memory database)')
    .refine((url) => postgresUrlProblem(url) === null, { error: (issue) => postgresUrlProblem(String(issue.input)) ?? 'is not a valid URL' })
    .default('pglite:./data'),
  // How long a service node keeps trying a PostgreSQL it cannot reach at start (refused, timed out, a
  // name not resolving yet) before it gives up: nodes started beside their database, or on a loaded
  // machine, come up with it instead of one fewer. A wrong password or an unknown database is not waited for.
  DATABASE_WAIT_SECONDS: z.coerce.number().int().min(0).max(86_400).default(180),
  DATABASE_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]{0,40}$/, 'must be a lowercase SQL identifier').default('public'),
  WORKERS: z.coerce.number().int().min(0).max(64).default(1),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JOB_READ_ISOLATION: z.enum(['organization', 'none']).default('organization'),
  TRUST_PROXY: booleanish.default(false),
  // Sign-in: any OpenID Connect issuer (Google, Entra, Auth0, Keycloak…). Unset outside production,
  // the embedded development identity provider at {BASE_URL}/dev-idp is used instead.
  OIDC_ISSUER: z.url({ protocol: /^https?$/ }).optional(),
  OIDC_CLIENT_ID: z.string().min(1).optional(),
  OIDC_CLIENT_SECRET: z.string().min(1).optional(),
  // Brands a dynamically registered client may not name itself after, with their verified domains:
  // `brand=domain|domain|loopback,brand,…` (replaces the built-in list; see docs/oauth.md).
  PROTECTED_BRANDS: z
    .string()
    .regex(/^\s*[^=,|]+(=[^=,|]+(\|[^=,|]+)*)?(\s*,\s*[^=,|]+(=[^=,|]+(\|[^=,|]+)*)?)*\s*$/, 'must be brand=domain|domain,brand,…')
    .optional(),
  // Limits, counted once across every node in the database (src/limits/, docs/api.md, docs/oauth.md).
  // Dynamic client registrations accepted per source address per minute.
  OAUTH_REGISTER_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(20),
  /** Authorization requests accepted per source address per minute. */
  OAUTH_AUTHORIZE_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(120),
  /**
   * The bearer token Prometheus sends to scrape /metrics. Unset: /metrics is public in development
   * and test, and not served at all in production (it names routes, statuses and job counts).
   */
  METRICS_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Requests per minute per API key, on /api/v1 and /api/mcp. */
  API_KEY_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(6000),
  /** Requests per minute per OAuth client on /api/mcp (all of its users together). */
  OAUTH_CLIENT_RATE_LIMIT: z.coerce.number().int().min(1).max(1_000_000).default(30000),
  // Executor (src/executor, src/browser, src/providers).
  /** Keys the handoff tokens (HMAC). Required in production; generated once and kept in the database otherwise. */
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  CHROMIUM_PATH: z.string().min(1).default('/usr/bin/chromium'),
  /** A remote browser: ws://…/devtools/browser/… (CDP) or a Playwright browser server's ws:// endpoint. */
  BROWSER_WS_ENDPOINT: z.url({ protocol: /^(wss?|https?)$/ }).optional(),
  /** How long a booking stopped at the card-code step is held for the person (capped by the provider's own hold). */
  HOLD_SECONDS: z.coerce.number().int().min(1).max(3600).default(900),
  /** How long a failed booking's evidence (its last page: screenshot and accessibility snapshot) is kept. */
  EVIDENCE_RETENTION_DAYS: z.coerce.number().int().min(1).max(365).default(7),
  /** How long after a job is final the traveller's personal data stays in it (profile, quoted names, card on file); then erased. */
  JOB_PERSONAL_DATA_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  // Scale-out (src/cluster): where a node that holds browser sessions listens for the other nodes
  // (an authenticated internal HTTP/WebSocket port), and the address it publishes for them.
  INTERNAL_HOST: z.string().min(1).default('127.0.0.1'),
  INTERNAL_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  INTERNAL_ADVERTISE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** On SIGTERM, how long a draining node keeps its held bookings for their people (default: HOLD_SECONDS). */
  DRAIN_SECONDS: z.coerce.number().int().min(0).max(86_400).optional(),
  /** Start the bundled sandbox provider sites with `serve` (default: on in development only). */
  SANDBOX: booleanish.optional(),
  SANDBOX_PORT: z.coerce.number().int().min(0).max(65535).default(4100),
  /** Where each provider lives: {provider} is replaced by its id (default: the sandbox sites). */
  PROVIDER_URL_TEMPLATE: z
    .string()
    .regex(/^https?:\/\/\S*\{provider\}\S*$/, 'must be an http(s) URL containing {provider}')
    .optional(),
  /** `providers add` accepts a start URL on a loopback or private address in production (off: refused, against server-side request forgery). */
  PROVIDER_ALLOW_PRIVATE_ADDRESSES: booleanish.default(false),
  // Webhooks (src/webhooks). Seconds between a failed delivery attempt and the next, one per retry
  // (default about three days in all: 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h seven times).
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .regex(/^\s*\d+(\s*,\s*\d+)*\s*$/, 'must be a comma-separated list of seconds, like 5,300,1800')
    .default('5,300,1800,7200,18000,36000,36000,36000,36000,36000,36000,36000')
    .transform((list) => list.split(',').map((n) => Number(n.trim()))),
  /** An endpoint whose deliveries have failed for this long without one success is disabled. */
  WEBHOOK_DISABLE_AFTER_SECONDS: z.coerce.number().int().min(1).default(3 * 86_400),
  /** After a rotation, deliveries are signed with the old secret too for this long. */
  WEBHOOK_SECRET_OVERLAP_SECONDS: z.coerce.number().int().min(0).max(30 * 86_400).default(86_400),
  /** How long one delivery attempt may take, connection to last byte. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Webhook URLs may point at loopback and private addresses (default: outside production only; refused in production). */
  WEBHOOK_ALLOW_PRIVATE: booleanish.optional(),
  // The operator console (/operator): the sign-in emails allowed in (comma-separated, compared
  // without regard to case). Empty: nobody is an operator, and the console answers 403 to everyone.
  OPERATOR_EMAILS: commaList((item) => (OPERATOR_EMAIL.test(item) ? item.toLowerCase() : null), 'an email address like ops@example.com'),
  /** Test/benchmark aid only: an extra pause before every executor step, so a run is slow enough to observe or kill. */
  EXECUTOR_STEP_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
});

export type Config = Omit<z.infer<typeof schema>, 'SANDBOX' | 'PROVIDER_URL_TEMPLATE' | 'WEBHOOK_ALLOW_PRIVATE' | 'DRAIN_SECONDS'> & {
  BASE_URL: string;
  DRAIN_SECONDS: number;
  SANDBOX: boolean;
  WEBHOOK_ALLOW_PRIVATE: boolean;
  PROVIDER_URL_TEMPLATE: string;
};

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Record<keyof z.infer<typeof schema>, string>> = {}): Config {
  const input: Record<string, string | undefined> = {};
  for (const key of Object.keys(schema.shape)) {
    const value = overrides[key as keyof typeof overrides] ?? env[key];
    input[key] = value === '' ? undefined : value;
  }
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0])}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const c = parsed.data;
  // The issuer must be byte-identical everywhere it appears: BASE_URL is used exactly as written.
  const baseUrl = c.BASE_URL ?? `http://localhost:${c.PORT}`;
  // Every problem is reported at once, so an operator fixes the environment in one pass.
  const problems: string[] = [];
  const production = c.NODE_ENV === 'production';
  if (c.BASE_URL === undefined) {
    if (production) problems.push('  BASE_URL: required in production: the public https:// address people and agents use (the OAuth issuer)');
  } else {
    const problem = baseUrlProblem(c.BASE_URL, production);
    if (problem) problems.push(`  BASE_URL: ${problem}`);
  }
  if (c.OIDC_ISSUER && (!c.OIDC_CLIENT_ID || !c.OIDC_CLIENT_SECRET)) {
    problems.push('  OIDC_ISSUER: needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too');
  }
  if (c.NODE_ENV === 'production') {
    // The development identity provider signs in anyone as any email: never in production.
    if (!c.OIDC_ISSUER) problems.push('  OIDC_ISSUER: production mode needs a real identity provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); the development one is refused');
    if (!c.SECRET_KEY) problems.push('  SECRET_KEY: required in production (at least 32 random characters)');
    if (c.EXECUTOR_STEP_DELAY_MS > 0) problems.push('  EXECUTOR_STEP_DELAY_MS: a test aid, refused in production');
    // The sandbox sites take any card and book nothing: a production service must never book on them.
    if (c.WEBHOOK_ALLOW_PRIVATE) problems.push('  WEBHOOK_ALLOW_PRIVATE: webhooks to loopback or private addresses are refused in production (server-side request forgery)');
    if (c.SANDBOX) problems.push('  SANDBOX: the bundled sandbox provider sites are for development, refused in production (unset SANDBOX or set it to false)');
  }
  // Other nodes must be able to reach the published address: a wildcard bind address is not one.
  if (!c.INTERNAL_ADVERTISE_URL && ['0.0.0.0', '::', '[::]'].includes(c.INTERNAL_HOST)) {
    problems.push(`  INTERNAL_HOST: ${c.INTERNAL_HOST} listens on every interface but is no address other nodes can reach: set INTERNAL_ADVERTISE_URL (e.g. http://10.0.0.5:7000) too`);
  }
  if (c.INTERNAL_ADVERTISE_URL) {
    const advertised = new URL(c.INTERNAL_ADVERTISE_URL);
    if (advertised.pathname !== '/' || advertised.search || advertised.hash || advertised.username) problems.push('  INTERNAL_ADVERTISE_URL: must be an origin like http://10.0.0.5:7000 (no path, query or user information)');
    if (c.INTERNAL_PORT === 0) problems.push('  INTERNAL_ADVERTISE_URL: needs a fixed INTERNAL_PORT (the published address must name the port the node listens on, or a proxy to it)');
  }
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
  return {
    ...c,
    BASE_URL: baseUrl,
    DRAIN_SECONDS: c.DRAIN_SECONDS ?? c.HOLD_SECONDS,
    SANDBOX: c.SANDBOX ?? c.NODE_ENV === 'development',
    WEBHOOK_ALLOW_PRIVATE: c.WEBHOOK_ALLOW_PRIVATE ?? !production,
    PROVIDER_URL_TEMPLATE: (c.PROVIDER_URL_TEMPLATE ?? `http://{provider}.localhost:${c.SANDBOX_PORT}`).replace(/\/+$/, ''),
  };
}
