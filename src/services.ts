import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/index.ts';
import type { DB } from './db/schema.ts';
import type { Queue } from './jobs/queue.ts';
import type { JobDeps } from './jobs/service.ts';
import type { JobLinks } from './jobs/handoff-url.ts';
import type { BrowserSessions } from './handoff/browser-sessions.ts';

/** What a running service holds: built once at start, handed to every surface. */
export interface Services {
  config: Config;
  database: Database;
  db: Kysely<DB>;
  queue: Queue;
  jobs: JobDeps;
  links: JobLinks;
  log: Logger;
  /** The executor's browser sessions in this process (held tabs at the handoff, running tabs). */
  browserSessions: BrowserSessions;
  /** Keys links that must be reproducible without storage (sessionUrl). */
  secretKey: string;
}
