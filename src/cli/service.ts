import { flushCompileCache } from 'node:module';
import type { Logger } from 'pino';
import { loadConfig, type Config } from '../config.ts';
import type { RunningService, StartOptions } from '../server.ts';
import { openDatabase } from '../db/index.ts';
import { openServiceDatabase } from '../db/open-service.ts';
import { migrateToLatest } from '../db/migrate.ts';
import { answerWhileStarting } from '../observability/starting-probes.ts';
import { createLogger } from '../observability/logger.ts';
import type { Command } from './command.ts';

// The server (HTTP, browser, identity provider, MCP SDK) is imported only by the commands that
// start it: importing it up front cost every other command, --help included, about two seconds.

const ENV_HELP = `
Environment:
  PORT (3000)  HOST (127.0.0.1)  BASE_URL (http://localhost:$PORT; a bare origin, https:// in production)
  DATABASE_URL (pglite:./data; or postgres://…)  DATABASE_SCHEMA (public)
  DATABASE_WAIT_SECONDS (180; how long a node starting keeps trying a PostgreSQL it cannot reach yet)
  WORKERS (1; 0 = no in-process workers)  LOG_LEVEL (info)  JOB_READ_ISOLATION (organization|none)
  NODE_ENV (development|production|test)  SECRET_KEY (required in production)
  OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET (sign-in provider; required in production,
    otherwise the development provider at $BASE_URL/dev-idp is used)
  PROTECTED_BRANDS (brand=domain|domain|loopback,… replaces the built-in list; Concierge is always protected)  OAUTH_REGISTER_RATE_LIMIT (20/min)
  OAUTH_AUTHORIZE_RATE_LIMIT (120/min)  API_KEY_RATE_LIMIT (6000/min per key)  OAUTH_CLIENT_RATE_LIMIT (30000/min per client on /api/mcp)
  METRICS_TOKEN (bearer token for /metrics; unset: public in development, off in production)  TRUST_PROXY (false; true behind a reverse proxy: the source address comes from X-Forwarded-For)
  MCP_ALLOWED_ORIGINS, MCP_ALLOWED_HOSTS (browser origins / Host names /api/mcp accepts besides BASE_URL's and loopback)
  CHROMIUM_PATH (/usr/bin/chromium)  BROWSER_WS_ENDPOINT (remote browser)  HOLD_SECONDS (900)
  INTERNAL_HOST (127.0.0.1)  INTERNAL_PORT (0 = any free port)  INTERNAL_ADVERTISE_URL (http://INTERNAL_HOST:port)
    (where a node with workers is reached by the others)  DRAIN_SECONDS (HOLD_SECONDS; how long SIGTERM keeps held bookings)
  SANDBOX (on in development)  SANDBOX_PORT (4100)  PROVIDER_URL_TEMPLATE (http://{provider}.localhost:$SANDBOX_PORT)`;

/**
 * Runs until SIGINT/SIGTERM, then drains (held bookings are served until they end or DRAIN_SECONDS
 * pass; running jobs go back to the queue) and closes cleanly. A second signal cuts the drain short.
 */
async function runUntilSignal(service: { drain(): Promise<void>; close(): Promise<void> }): Promise<void> {
  const signal = () => new Promise<void>((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
  await signal();
  await Promise.race([service.drain(), signal()]);
  await service.close();
}

/**
 * Starts the service, the database opening while the server's modules load (PGlite's WebAssembly
 * compiles on other threads meanwhile), then runs it until a signal.
 */
async function runService(config: Config, log: Logger, options: Omit<StartOptions, 'database' | 'probes'> = {}): Promise<void> {
  // A start that fails otherwise (its port taken) stops a wait for the database too, or the process
  // would linger until DATABASE_WAIT_SECONDS ran out.
  const abandon = new AbortController();
  const database = openServiceDatabase(config, log, undefined, abandon.signal);
  // The health probes answer while the server's modules load too: seconds on a loaded machine.
  const probes = options.listen === false ? undefined : answerWhileStarting(config.HOST, config.PORT);
  // Both awaited by startService.
  database.catch(() => {});
  probes?.catch(() => {});
  let service: RunningService;
  try {
    const { startService } = await import('../server.ts');
    service = await startService(config, log, { ...options, database, probes });
  } catch (error) {
    abandon.abort();
    void probes?.then((started) => started.close(), () => {});
    throw error;
  }
  if (options.listen === false) log.info('worker started');
  // Written now, not only at exit: a process that is killed never writes it (src/main.ts).
  flushCompileCache();
  await runUntilSignal(service);
}

export const serve: Command = {
  name: 'serve',
  summary: 'run the API, the web app and in-process workers',
  usage: `concierge serve${ENV_HELP}`,
  async run() {
    const config = loadConfig();
    await runService(config, createLogger(config.LOG_LEVEL));
  },
};

export const worker: Command = {
  name: 'worker',
  summary: 'run booking workers only (scale-out), against the same database',
  usage: `concierge worker${ENV_HELP}`,
  async run() {
    const config = loadConfig();
    await runService({ ...config, WORKERS: Math.max(1, config.WORKERS) }, createLogger(config.LOG_LEVEL), { listen: false, sandbox: false });
  },
};

export const migrate: Command = {
  name: 'migrate',
  summary: 'apply database migrations and exit',
  usage: `concierge migrate${ENV_HELP}`,
  async run() {
    const config = loadConfig();
    const database = await openDatabase(config);
    try {
      const applied = await migrateToLatest(database.db, database.schema);
      process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'already up to date\n');
    } finally {
      await database.close();
    }
  },
};
