import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { DestinationStream } from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startService, type RunningService } from '../../src/server.ts';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import type { Scenario } from '../../src/jobs/types.ts';
import { SCENARIOS } from '../../src/jobs/types.ts';
import { pgliteTemplate } from './pglite-template.ts';

/** Every storage-touching test runs on PGlite, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const BACKENDS: Array<{ name: 'pglite' | 'postgres'; url: string }> = [
  { name: 'pglite', url: 'pglite:memory:' },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres' as const, url: process.env.TEST_DATABASE_URL }] : []),
];

export interface TestService extends RunningService {
  /** http://127.0.0.1:<port> */
  url: string;
  config: Config;
  mintKey(organizationName?: string, types?: Scenario[]): Promise<string>;
}

/**
 * Starts the real service on an ephemeral port. On PostgreSQL each service gets its own schema
 * (and pg-boss schema), dropped at close, so concurrent runs never see each other's rows.
 */
export interface TestServiceOptions {
  /** Where the service's pino lines go (a test that reads the logs); the level becomes `info`. */
  logDestination?: DestinationStream;
  /** On PostgreSQL, how the test reaches the database to drop the schema (when the service goes through a proxy). */
  adminUrl?: string;
}

export async function startTestService(backendUrl: string, env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const schema = backendUrl.startsWith('postgres') ? `t_${randomBytes(6).toString('hex')}` : 'public';
  const config = loadConfig({}, { NODE_ENV: 'test', DATABASE_URL: backendUrl, DATABASE_SCHEMA: schema, PORT: '0', WORKERS: '0', ...env });
  const logger = options.logDestination ? createLogger('info', options.logDestination) : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  const loadDataDir = backendUrl === 'pglite:memory:' ? await pgliteTemplate() : undefined;
  const running = await startService(config, logger, { loadDataDir });
  const address = running.url.replace('[::1]', '127.0.0.1');
  return {
    ...running,
    url: address,
    config: { ...config, BASE_URL: env.BASE_URL ?? address },
    async mintKey(organizationName = 'Acme Travel', types = [...SCENARIOS]) {
      const { key } = await mintApiKey(running.services.db, { organizationName, allowedJobTypes: types, live: false, dailyLimit: null });
      return key;
    },
    async close() {
      await running.close();
      if (schema !== 'public') {
        const client = new pg.Client({ connectionString: options.adminUrl ?? backendUrl });
        await client.connect();
        await client.query(`drop schema if exists "${schema}" cascade; drop schema if exists "${schema}_pgboss" cascade`);
        await client.end();
      }
    },
  };
}

/** A date some days ahead, as YYYY-MM-DD. */
export function daysFromNow(days: number): string {
  return new Date(Date.now() + days * 86400_000).toISOString().slice(0, 10);
}

export const PROFILE = { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' };
export const FLIGHT_PROFILE = { ...PROFILE, dob: '1985-12-10', passport_number: 'X1234567', passport_country: 'GB' };

export function restaurantRequest(overrides: Record<string, unknown> = {}) {
  return {
    request: { scenario: 'restaurant', params: { restaurant_name: 'Noma', city: 'Copenhagen', date: daysFromNow(7), time: '19:30', covers: 2, ...overrides } },
    profile: PROFILE,
  };
}
