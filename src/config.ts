import { z } from 'zod';

// Every setting the service reads, validated once at start. A bad value stops the process with a
// message naming the variable, so an operator never learns about a typo from a failing request.
const booleanish = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/.+|pglite:.*)$/, 'must be postgres://… or pglite:<dir> (pglite:memory: for an in-memory database)')
    .default('pglite:./data'),
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
  // `brand=domain|domain,brand,…` (replaces the built-in list; see docs/oauth.md).
  PROTECTED_BRANDS: z
    .string()
    .regex(/^\s*[^=,|]+(=[^=,|]+(\|[^=,|]+)*)?(\s*,\s*[^=,|]+(=[^=,|]+(\|[^=,|]+)*)?)*\s*$/, 'must be brand=domain|domain,brand,…')
    .optional(),
  // Dynamic client registrations accepted per source address per minute (in-memory, per process).
  OAUTH_REGISTER_RATE_LIMIT: z.coerce.number().int().min(1).max(100_000).default(20),
});

export type Config = z.infer<typeof schema> & { BASE_URL: string };

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
  if (c.OIDC_ISSUER && (!c.OIDC_CLIENT_ID || !c.OIDC_CLIENT_SECRET)) {
    throw new ConfigError('invalid configuration:\n  OIDC_ISSUER: needs OIDC_CLIENT_ID and OIDC_CLIENT_SECRET too');
  }
  // The development identity provider signs in anyone as any email: never in production.
  if (c.NODE_ENV === 'production' && !c.OIDC_ISSUER) {
    throw new ConfigError('invalid configuration:\n  OIDC_ISSUER: production mode needs a real identity provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET); the development one is refused');
  }
  // The issuer must be byte-identical everywhere it appears, so a trailing slash is never added.
  const baseUrl = (c.BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, '');
  return { ...c, BASE_URL: baseUrl };
}
