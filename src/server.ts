import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import { openServiceDatabase } from './db/open-service.ts';
import { migrateToLatest } from './db/migrate.ts';
import { startQueue } from './jobs/queue.ts';
import { buildApp } from './app.ts';
import { scheduleOAuthPurge } from './oauth/purge-schedule.ts';
import { builtInsExist, modeForPeople, providerRegistry } from './providers/registry.ts';
import { scheduleEvidencePurge } from './executor/evidence-purge.ts';
import { schedulePersonalDataPurge } from './jobs/retention-purge.ts';
import { startExecutor } from './executor/index.ts';
import { startWebhooks, webhookSettings } from './webhooks/deliver.ts';
import { handoffLinks, resolveSecretKey } from './jobs/handoff-tokens.ts';
import { sessionUrlOf } from './handoff/session-view.ts';
import type { Job } from './jobs/types.ts';
import type { Services } from './services.ts';
import { API_KEY_REVOKED_CHANNEL, ApiKeyCache, attachApiKeyCache } from './auth/api-key-cache.ts';
import { startInternalServer } from './cluster/internal-server.ts';
import { internalRoutes } from './web/internal-routes.ts';
import { buildLiveTabs } from './cluster/live-tabs.ts';
import { NodeRecord } from './cluster/nodes.ts';
import { answerWhileStarting, type StartingProbes } from './observability/starting-probes.ts';

export interface RunningService {
  app: FastifyInstance;
  services: Services;
  url: string;
  /**
   * SIGTERM: /readyz turns 503, no new jobs are taken, running ones go back to the queue, and the
   * held bookings are served until they end or DRAIN_SECONDS pass. close() follows.
   */
  drain(): Promise<void>;
  close(): Promise<void>;
}

/** Opens the database, applies migrations, starts the queue and the HTTP server. */
export interface StartOptions {
  /** Serve HTTP (false: a worker-only process). The port answers the health probes from the start, before the database is reached. */
  listen?: boolean;
  /** Start the bundled sandbox provider sites (default: config.SANDBOX; never in a worker-only process). */
  sandbox?: boolean;
  /**
   * The database, already being opened by the caller (openServiceDatabase): `concierge serve` opens
   * it while this module and its imports load; tests start an in-memory PGlite from a dump. By
   * default the service opens config.DATABASE_URL itself.
   */
  database?: Promise<Database>;
  /**
   * The HTTP port, already answering the health probes (answerWhileStarting on HOST:PORT): `concierge
   * serve` opens it before this module loads. By default the service opens it itself.
   */
  probes?: Promise<StartingProbes>;
}


/**
 * The HTTP port, answering the probes while the database is opened (and waited for, if need be):
 * /healthz 200, /readyz 503. A port that cannot be had fails the start, and the database, no longer
 * wanted, is closed once it opens.
 */
async function probesWhile(opening: Promise<Database>, probes: Promise<StartingProbes>): Promise<StartingProbes> {
  try {
    return await probes;
  } catch (error) {
    void opening.then((database) => database.close(), () => {});
    throw error;
  }
}

/** The process's CPU time so far, user and system, in ms. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return Math.round((user + system) / 1000);
}

export async function startService(config: Config, log: Logger, options: StartOptions = {}): Promise<RunningService> {
  // Where start-up time goes, in the 'listening' log line (bench/startup.ts reads it): ms per phase,
  // the first being the process's own start and its imports; cpu is the process's CPU time so far.
  const startup: Record<string, number> = { imports: Math.round(performance.now()) };
  let phaseStart = performance.now();
  const phase = (name: string) => {
    const now = performance.now();
    startup[name] = Math.round(now - phaseStart);
    phaseStart = now;
  };
  const opening = options.database ?? openServiceDatabase(config, log);
  // Awaited below: until then a failure must not count as unhandled (which would end the process).
  opening.catch(() => {});
  const probes = options.listen === false ? null : await probesWhile(opening, options.probes ?? answerWhileStarting(config.HOST, config.PORT));
  const database = await opening.catch(async (error: unknown) => {
    await probes?.close();
    throw error;
  });
  phase('database');
  const closers: Array<() => Promise<void>> = [() => database.close()];
  if (probes) closers.unshift(() => probes.close());
  try {
    const applied = await migrateToLatest(database.db, database.schema);
    if (applied.length) log.info({ migrations: applied }, 'database migrated');
    phase('migrations');
    const queue = await startQueue(database, { onError: (error) => log.warn({ err: { message: error.message } }, 'queue background error') });
    closers.unshift(() => queue.stop());
    phase('queue');
    if (database.listen) {
      // Recently verified API keys, kept only while revocations can reach us (auth/api-key-cache.ts).
      const cache = new ApiKeyCache();
      const stopListening = database.listen(API_KEY_REVOKED_CHANNEL, {
        onNotify: (hash) => cache.evict(hash),
        onUp: () => cache.enable(),
        onDown: () => cache.disable(),
      });
      closers.unshift(stopListening);
      attachApiKeyCache(database.db, cache);
    }
    await scheduleOAuthPurge(queue.boss, database.db, log, { work: config.WORKERS > 0 });
    await scheduleEvidencePurge(queue.boss, database.db, log, { work: config.WORKERS > 0, retentionDays: config.EVIDENCE_RETENTION_DAYS });
    await schedulePersonalDataPurge(queue.boss, database.db, log, { work: config.WORKERS > 0, retentionDays: config.JOB_PERSONAL_DATA_RETENTION_DAYS });
    phase('schedules');
    if (options.sandbox ?? (config.SANDBOX && options.listen !== false)) {
      // Development only: the provider websites the executor books on, on *.localhost:SANDBOX_PORT.
      const { startSandbox } = await import('../sandbox/index.ts');
      const sandbox = await startSandbox({ port: config.SANDBOX_PORT, host: '127.0.0.1', holdSeconds: config.HOLD_SECONDS });
      closers.push(() => sandbox.close());
      log.info({ providers: config.PROVIDER_URL_TEMPLATE, port: sandbox.port }, 'sandbox provider sites are running');
    }
    phase('sandbox');
    const secretKey = await resolveSecretKey(database.db, config.SECRET_KEY);
    const links = { ...handoffLinks(config.BASE_URL, secretKey), sessionUrl: (job: Job) => sessionUrlOf(config.BASE_URL, secretKey, job) };
    // The providers with their drivers, built here once: the executor and job creation see them only through this.
    const providers = providerRegistry(database.db, { builtIns: builtInsExist(config.NODE_ENV), urlTemplate: config.PROVIDER_URL_TEMPLATE });
    const executor = await startExecutor({ config, db: database.db, queue, log, secretKey, providers });
    closers.unshift(() => executor.stop());
    // Webhook deliveries are sent by every process (like the dead letters): they must go out even when no booking worker runs.
    phase('executor');
    const webhooks = await startWebhooks({ db: database.db, queue, log, settings: webhookSettings(config, secretKey) });
    closers.unshift(() => webhooks.stop());
    phase('webhooks');
    const services: Services = {
      config,
      database,
      db: database.db,
      queue,
      jobs: { db: database.db, queue, readIsolation: config.JOB_READ_ISOLATION, providers, links, userJobMode: modeForPeople(config.NODE_ENV) },
      providers,
      links,
      executor,
      tabs: buildLiveTabs({ db: database.db, secretKey, holds: executor.holds }),
      webhooks,
      log,
      secretKey,
      lifecycle: { draining: false },
    };
    // A process that holds browser sessions lets the other nodes reach them (src/cluster).
    let node: NodeRecord | null = null;
    if (config.WORKERS > 0) {
      const internal = await startInternalServer(config, { db: database.db, secretKey }, log, (app) => internalRoutes(app, { services }));
      closers.unshift(() => internal.close());
      node = await NodeRecord.publish(database.db, log, { id: executor.holds.instanceId, internalUrl: internal.url, role: options.listen === false ? 'worker' : 'serve' });
      const published = node;
      closers.unshift(() => published.remove());
    }
    phase('internal');
    const app = await buildApp(services);
    phase('app');
    closers.unshift(() => app.close());
    let url = config.BASE_URL;
    if (probes) {
      // The port changes hands only once the app is ready, so it is refused for the least time.
      await app.ready();
      await probes.close();
      const address = await app.listen({ host: config.HOST, port: probes.port });
      phase('listen');
      log.info({ address, baseUrl: config.BASE_URL, database: database.backend, startupMs: { total: Math.round(performance.now()), ...startup, cpu: cpuMs() } }, 'concierge is listening');
      url = address;
    }
    let closed = false;
    let drained: Promise<void> | null = null;
    return {
      app,
      services,
      url,
      drain() {
        drained ??= (async () => {
          services.lifecycle!.draining = true;
          log.info({ drainSeconds: config.DRAIN_SECONDS }, 'draining: not ready for new work');
          await node?.setDraining().catch(() => {});
          await executor.drain(config.DRAIN_SECONDS * 1000);
        })();
        return drained;
      },
      async close() {
        if (closed) return;
        closed = true;
        for (const close of closers) await close().catch((error: unknown) => log.warn({ err: error }, 'error while closing'));
      },
    };
  } catch (error) {
    for (const close of closers) await close().catch(() => {});
    throw error;
  }
}
