import { PgBoss, fromKysely, fromPglite, type Job as BossJob } from 'pg-boss';
import { sql, type Kysely, type Transaction } from 'kysely';
import { KEEPALIVE_INITIAL_DELAY_MS, type Database } from '../db/index.ts';
import type { DB } from '../db/schema.ts';

// pg-boss is the queue on both backends. A booking job's queue entry is written in the same
// transaction as the job row, so a job is never created without the work to run it, or the reverse.

/** TCP keepalive as on the service's own pool (db/index.ts): a PostgreSQL server that stops
 *  answering without closing connections would otherwise leave pg-boss's queries waiting for as
 *  long as the kernel keeps the socket. */
const SILENT_SERVER_DETECTION = { keepAlive: true, keepAliveInitialDelayMillis: KEEPALIVE_INITIAL_DELAY_MS } as const;

export const BOOKING_QUEUE = 'booking';
/**
 * Where pg-boss copies a booking queue entry that failed for the last time (its handler threw on the
 * last try, or its worker died and the heartbeat ran out): the executor settles the job from there.
 */
export const BOOKING_DEAD_LETTER_QUEUE = 'booking-dead-letter';
/** Retries after the first try of a booking queue entry: 4 tries in all. */
export const BOOKING_RETRY_LIMIT = 3;
/** A worker sends heartbeats; one silent for this long is presumed dead and its job is retried. */
export const BOOKING_HEARTBEAT_SECONDS = 10;
/**
 * How often a running job's heartbeat is written: a fifth of the silence that ends its claim (pg-boss
 * writes it at half by default), so that a worker starved of CPU for a few seconds (a busy machine,
 * a browser starting) keeps its job rather than have it run twice; a dead one is still found as soon.
 */
export const BOOKING_HEARTBEAT_REFRESH_SECONDS = 2;

/** Webhook deliveries (src/webhooks): one entry per attempt; a failed attempt sends the next with its delay. */
export const WEBHOOK_QUEUE = 'webhook';

export interface BookingMessage {
  jobId: string;
}

export interface Queue {
  boss: PgBoss;
  enqueueBooking(trx: Transaction<DB> | Kysely<DB>, jobId: string): Promise<void>;
  /** Tells this process's booking workers a job was committed, so one takes it now rather than at its next poll. */
  wake(): void;
  /** The executor's hook for wake(). */
  onWake(listener: () => void): void;
  depth(): Promise<{ queued: number; active: number }>;
  stop(): Promise<void>;
}

export interface QueueOptions {
  supervise?: boolean;
  /** Failures pg-boss meets in the background (a lost connection, say); the owner logs them. */
  onError?: (error: Error) => void;
}

export async function startQueue(database: Database, options: QueueOptions = {}): Promise<Queue> {
  const { boss: target } = database;
  // The supervisor fails jobs whose heartbeat went silent (a killed worker) on each monitor pass: every
  // 10 s instead of pg-boss's default minute, so a crashed job is taken up again well within a minute.
  const supervision = { supervise: options.supervise ?? true, monitorIntervalSeconds: 10, superviseIntervalSeconds: 10 };
  const make = () =>
    target.backend === 'pglite'
      ? new PgBoss({ db: fromPglite(target.pglite!), backend: 'pglite', schema: target.schema, ...supervision })
      : new PgBoss({ connectionString: target.connectionString!, schema: target.schema, max: 5, ...SILENT_SERVER_DETECTION, ...supervision });
  // pg-boss reports background failures as events; without a listener Node would treat them as fatal.
  const onError = options.onError ?? (() => {});
  let boss = make();
  boss.on('error', onError);
  await boss.start();
  const booking = await boss.getQueue(BOOKING_QUEUE);
  const webhook = await boss.getQueue(WEBHOOK_QUEUE);
  if (!booking || booking.deadLetter !== BOOKING_DEAD_LETTER_QUEUE || !webhook) {
    // Two processes starting together may both try; the loser finds the queue already there.
    const exists = (error: unknown) => {
      if (!String((error as Error).message).includes('already exists')) throw error;
    };
    if (!(await boss.getQueue(BOOKING_DEAD_LETTER_QUEUE))) await boss.createQueue(BOOKING_DEAD_LETTER_QUEUE, { retryLimit: 5, retryDelay: 5, expireInSeconds: 60 }).catch(exists);
    // A worker that dies mid-attempt: pg-boss tries the entry again (the delivery keeps its webhook-id).
    if (!webhook) await boss.createQueue(WEBHOOK_QUEUE, { retryLimit: 2, retryDelay: 5, expireInSeconds: 120 }).catch(exists);
    if (!booking) {
      await boss
        .createQueue(BOOKING_QUEUE, { heartbeatSeconds: BOOKING_HEARTBEAT_SECONDS, retryLimit: BOOKING_RETRY_LIMIT, retryDelay: 1, expireInSeconds: 60 * 60, deadLetter: BOOKING_DEAD_LETTER_QUEUE })
        .catch(exists);
    } else if (booking.deadLetter !== BOOKING_DEAD_LETTER_QUEUE) {
      // A database from before the dead-letter queue: its entries sent from now on carry it.
      await boss.updateQueue(BOOKING_QUEUE, { deadLetter: BOOKING_DEAD_LETTER_QUEUE });
    }
    // pg-boss caches queue definitions when it starts. A send inside our transaction must not miss
    // that cache: on PGlite the lookup would wait for the very transaction it runs in. Restart once.
    await boss.stop({ graceful: false });
    boss = make();
    boss.on('error', onError);
    await boss.start();
  }
  const wakeListeners: Array<() => void> = [];
  return {
    boss,
    wake() {
      for (const listener of wakeListeners) listener();
    },
    onWake(listener) {
      wakeListeners.push(listener);
    },
    async enqueueBooking(trx, jobId) {
      await boss.send(BOOKING_QUEUE, { jobId } satisfies BookingMessage, { singletonKey: jobId, db: fromKysely(trx) });
    },
    async depth() {
      // Counted now: pg-boss's own counters (getQueue, and getQueueStats even when forced) are
      // refreshed by its monitor and may be up to a minute old.
      const { rows } = await sql<{ queued: number; active: number }>`
        select count(*) filter (where state in ('created', 'retry'))::int as queued, count(*) filter (where state = 'active')::int as active
        from ${sql.table(`${target.schema}.job`)} where name = ${BOOKING_QUEUE}`.execute(database.db);
      return rows[0] ?? { queued: 0, active: 0 };
    },
    async stop() {
      await boss.stop({ graceful: true, timeout: 5_000 });
    },
  };
}

export type BookingJob = BossJob<BookingMessage>;
