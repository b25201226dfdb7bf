import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { DB } from './db/schema.ts';
import type { Queue } from './jobs/queue.ts';
import type { JobDeps } from './jobs/service.ts';
import type { JobLinks } from './jobs/handoff-url.ts';
import type { Executor } from './executor/index.ts';
import type { Webhooks } from './webhooks/deliver.ts';
import type { LiveTabs } from './cluster/live-tabs.ts';
import type { ProviderRegistry } from './driver/registry.ts';

/** What a running service holds: built once at start, handed to every surface. */
export interface Services {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  queue: Queue;
  jobs: JobDeps;
  /** The providers with their drivers (providers/registry.ts), as the executor and job creation see them. */
  providers: ProviderRegistry;
  links: JobLinks;
  /** Booking workers of this process, and the sessions they hold at the card-code step (executor.holds). */
  executor: Executor;
  /** The tabs the person's pages show: this process's, and the way to the other nodes' (cluster/live-tabs.ts). */
  tabs: LiveTabs;
  /** Webhook deliveries sent by this process (webhooks/deliver.ts). */
  webhooks: Webhooks;
  log: Logger;
  /** Keys links that must be reproducible without storage (sessionUrl). */
  secretKey: string;
  /** Draining after SIGTERM: /readyz answers 503 (src/server.ts). */
  lifecycle?: { draining: boolean };
}
