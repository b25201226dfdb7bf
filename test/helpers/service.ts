import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { dropSchemas } from '../../src/db/index.ts';
import type { DestinationStream, Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { startService, type RunningService } from '../../src/server.ts';
import { openServiceDatabase } from '../../src/db/open-service.ts';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import type { Scenario } from '../../src/jobs/types.ts';
import { SCENARIOS } from '../../src/jobs/types.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';

/** Every storage-touching test runs on PGlite, and on PostgreSQL too when TEST_DATABASE_URL is set. */
export const BACKENDS: Array<{ name: 'pglite' | 'postgres'; url: string }> = [
  { name: 'pglite', url: 'pglite:memory:' },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'postgres' as const, url: process.env.TEST_DATABASE_URL }] : []),
];

/**
 * The one backend of the Chromium-heavy page tests (the handoff page, its expiry, the bookings and
 * watch pages): PostgreSQL when it is set, as a deployment of several nodes runs, else PGlite. What
 * they store goes through the same code paths the storage tests run on every backend; a second
 * backend would only run the browser twice.
 */
export const BROWSER_BACKEND = BACKENDS.at(-1)!;

export interface TestService extends RunningService {
  /** http://127.0.0.1:<port> */
  url: string;
  config: Config;
  mintKey(organizationName?: string, types?: Scenario[]): Promise<string>;
  /** The sandbox provider sites this service books on (when started with { sandbox: true }). */
  sandbox: Sandbox | null;
}

/**
 * Tests poll their jobs every 150 ms with one key, dozens at a time: far beyond any per-minute
 * limit a real client needs. The limit is still counted on every request; the tests of the limit
 * itself (test/limits/) set their own.
 */
export const UNLIMITED_CREDENTIALS = { API_KEY_RATE_LIMIT: '1000000', OAUTH_CLIENT_RATE_LIMIT: '1000000' };

/** A port free on 127.0.0.1 right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * Starts the real service on an ephemeral port. On PostgreSQL each service gets its own schema
 * (and pg-boss schema), dropped at close, so concurrent runs never see each other's rows.
 *
 * The port is chosen before the service starts so that BASE_URL (the OAuth issuer, which must be
 * byte-identical everywhere) is the very address the service listens on.
 */
export interface TestServiceOptions {
  /** Where the service's pino lines go (a test that reads the logs); the level becomes `info`. */
  logDestination?: DestinationStream;
  /** On PostgreSQL, how the test reaches the database to drop the schema (when the service goes through a proxy). */
  adminUrl?: string;
  /** Start the sandbox provider sites on an ephemeral port and point the providers at them. */
  sandbox?: boolean;
  /** The sandbox sites' own booking hold (default 900 s). */
  sandboxHoldSeconds?: number;
  /** The service's logger (default: silent, or TEST_LOG_LEVEL; see also logDestination). */
  log?: Logger;
}

export async function startTestService(backendUrl: string, env: Record<string, string> = {}, options: TestServiceOptions = {}): Promise<TestService> {
  const schema = backendUrl.startsWith('postgres') ? `t_${randomBytes(6).toString('hex')}` : 'public';
  let running: RunningService | undefined;
  let config!: Config;
  let port = 0;
  const logger = options.log ?? (options.logDestination ? createLogger('info', options.logDestination) : createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'));
  const loadDataDir = backendUrl === 'pglite:memory:' ? await pgliteTemplate() : undefined;
  const sandbox = options.sandbox ? await startSandbox({ holdSeconds: options.sandboxHoldSeconds }) : null;
  const providers: Record<string, string> = sandbox ? { PROVIDER_URL_TEMPLATE: `http://{provider}.localhost:${sandbox.port}` } : {};
  for (let attempt = 0; !running; attempt++) {
    port = env.PORT && env.PORT !== '0' ? Number(env.PORT) : await freePort();
    config = loadConfig({}, { NODE_ENV: 'test', DATABASE_URL: backendUrl, DATABASE_SCHEMA: schema, WORKERS: '0', OAUTH_REGISTER_RATE_LIMIT: '1000', ...UNLIMITED_CREDENTIALS, BASE_URL: `http://127.0.0.1:${port}`, ...providers, ...env, PORT: String(port) });
    try {
      // Opened afresh on each try: a start that fails closes its database.
      running = await startService(config, logger, { database: openServiceDatabase(config, logger, loadDataDir) });
    } catch (error) {
      // Another process took the port between the probe and the listen: try another one.
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 5) {
        await sandbox?.close();
        throw error;
      }
    }
  }
  const started = running;
  return {
    ...started,
    url: `http://127.0.0.1:${port}`,
    config,
    sandbox,
    async mintKey(organizationName = 'Acme Travel', types = [...SCENARIOS]) {
      const { key } = await mintApiKey(started.services.db, { organizationName, allowedJobTypes: types, live: false, dailyLimit: null });
      return key;
    },
    async close() {
      await started.close();
      await sandbox?.close();
      if (schema !== 'public') {
        await dropSchemas(options.adminUrl ?? backendUrl, schema);
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

type Params = Record<string, unknown>;
const withConsent = (consent?: Params) => (consent ? { consent } : {});

/**
 * A valid booking request per scenario, for every test: its params overridden, a consent when given.
 * The venues are ones the sandbox sites can book.
 */
export const requests = {
  restaurant: (params: Params = {}, consent?: Params) => ({
    request: { scenario: 'restaurant', params: { restaurant_name: 'Noma', city: 'Copenhagen', date: daysFromNow(7), time: '19:30', covers: 2, ...params } },
    profile: PROFILE,
    ...withConsent(consent),
  }),
  hotel: (params: Params = {}, consent?: Params) => ({
    request: { scenario: 'hotel', params: { hotel_name: 'Hotel Lutetia', city: 'Paris', checkin: daysFromNow(10), checkout: daysFromNow(12), adults: 2, ...params } },
    profile: PROFILE,
    ...withConsent(consent),
  }),
  flight: (params: Params = {}, consent?: Params) => ({
    request: { scenario: 'flight', params: { origin: 'LHR', dest: 'JFK', date: daysFromNow(20), passengers: 1, targetAirline: 'Northwind Airways', targetDepartureTime: '10:00', ...params } },
    profile: FLIGHT_PROFILE,
    ...withConsent(consent),
  }),
  activity: (params: Params = {}, consent?: Params) => ({
    request: { scenario: 'activity', params: { event_name: 'Hamilton', city: 'London', event_date: daysFromNow(15), num_tickets: 2, ...params } },
    profile: PROFILE,
    ...withConsent(consent),
  }),
};

/** The restaurant request most tests start from. */
export const restaurantRequest = (params: Params = {}) => requests.restaurant(params);
