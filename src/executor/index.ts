import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { JobWithMetadata } from 'pg-boss';
import type { Logger } from 'pino';
import { EgressProxy } from '../browser/egress.ts';
import { BrowserPool } from '../browser/pool.ts';
import type { ProviderRegistry } from '../driver/registry.ts';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { BOOKING_DEAD_LETTER_QUEUE, BOOKING_HEARTBEAT_REFRESH_SECONDS, BOOKING_QUEUE, type BookingMessage, type Queue } from '../jobs/queue.ts';
import { workDeadLetters } from './dead-letter.ts';
import { HoldRegistry } from './holds.ts';
import { ACTION_TIMEOUT_MS } from './attempt.ts';
import { runJob, type RunDeps } from './run-job.ts';

export type { HeldSession, HoldEnd } from './held-session.ts';

// The executor of a process: WORKERS booking jobs at a time taken from the pg-boss queue (each with
// its heartbeat, so a killed worker's job is taken up again by another), one shared Chromium, and the
// registry of booking sessions held for the handoff. Every process, workers or not, settles the jobs
// the queue gave up on (dead-letter.ts).

export interface Executor {
  /** Sessions held at the card-code step in this process (the handoff's way in). */
  holds: HoldRegistry;
  /**
   * A rolling restart: takes no new jobs, hands its running ones back to the queue (another worker
   * takes them up; the run id fences this one out), and keeps serving its holds until they end or
   * `ms` passes. stop() then ends what is left.
   */
  drain(ms: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * In production the browser reaches only the public web: its contexts go through the egress proxy
 * (src/browser/egress.ts), unless the operator allows private addresses (a provider on their own
 * network). A remote browser cannot reach this node's loopback proxy: its own network must keep it
 * off private addresses, which the log says at start.
 */
async function egressFor(config: Config, log: Logger): Promise<EgressProxy | null> {
  if (config.NODE_ENV !== 'production' || config.PROVIDER_ALLOW_PRIVATE_ADDRESSES) return null;
  if (config.BROWSER_WS_ENDPOINT) {
    log.warn('the remote browser (BROWSER_WS_ENDPOINT) is not behind this node\'s egress proxy: keep its network off loopback and private addresses');
    return null;
  }
  return EgressProxy.start();
}

export async function startExecutor(options: { config: Config; db: Kysely<DB>; queue: Queue; log: Logger; secretKey: string; providers: ProviderRegistry }): Promise<Executor> {
  const { config, db, queue, log, providers } = options;
  const holds = new HoldRegistry(db, log, randomUUID(), providers);
  const egress = await egressFor(config, log);
  const pool = new BrowserPool({ chromiumPath: config.CHROMIUM_PATH, wsEndpoint: config.BROWSER_WS_ENDPOINT, ...(egress ? { egress } : {}) });
  const stopping = new AbortController();
  const deps: RunDeps = {
    db,
    pool,
    holds,
    providers,
    log,
    secretKey: options.secretKey,
    stopping: stopping.signal,
    settings: {
      holdSeconds: config.HOLD_SECONDS,
      stepDelayMs: config.EXECUTOR_STEP_DELAY_MS,
      timeoutMs: ACTION_TIMEOUT_MS,
      backoffMs: 300,
    },
  };

  if (config.WORKERS > 0) {
    // One pg-boss worker per slot, so that a job created in this process wakes one idle slot at
    // once; other processes' jobs are found by polling.
    const idle = new Set<string>();
    const busy = new Set<string>();
    for (let i = 0; i < config.WORKERS; i++) {
      let id = '';
      id = await queue.boss.work<BookingMessage>(BOOKING_QUEUE, { batchSize: 1, pollingIntervalSeconds: 2, includeMetadata: true, heartbeatRefreshSeconds: BOOKING_HEARTBEAT_REFRESH_SECONDS }, async ([job]) => {
        if (!job) return;
        idle.delete(id);
        busy.add(id);
        try {
          const { retryLimit, output } = job as JobWithMetadata<BookingMessage>;
          await runJob(deps, job.data.jobId, { signal: job.signal, retryCount: job.retryCount, lastTry: job.retryCount >= retryLimit, previousOutput: output });
        } finally {
          busy.delete(id);
          idle.add(id);
          // The next job's tab opened now, while this slot waits, rather than after it is claimed.
          if (!stopping.signal.aborted) pool.keepSpare();
        }
      });
      idle.add(id);
    }
    queue.onWake(() => {
      const next = idle.values().next();
      if (next.done) return;
      idle.delete(next.value);
      queue.boss.notifyWorker(next.value);
      // Not picked up after all (another process was faster): it is idle again.
      setTimeout(() => {
        if (!busy.has(next.value)) idle.add(next.value);
      }, 1_000).unref();
    });
  }
  // Every node sweeps, web nodes too: a hold whose holder died is released even when no other
  // worker process is running. (The heartbeat does nothing in a process that holds nothing.)
  holds.start({ sweep: true });
  await workDeadLetters(queue, db, log);

  let stopped: Promise<void> | null = null;
  let handedBack: Promise<void> | null = null;
  const stopWorking = () => {
    handedBack ??= (async () => {
      stopping.abort();
      if (config.WORKERS > 0) await queue.boss.offWork(BOOKING_QUEUE, { wait: true }).catch((error: unknown) => log.warn({ err: { message: (error as Error).message } }, 'stopping the booking workers'));
    })();
    return handedBack;
  };
  return {
    holds,
    async drain(ms) {
      await stopWorking();
      const held = holds.list().length;
      if (held > 0) log.info({ held, drainSeconds: Math.round(ms / 1000) }, 'draining: keeping held bookings for their people');
      await holds.untilEmpty(ms);
    },
    stop() {
      stopped ??= (async () => {
        await stopWorking();
        await queue.boss.offWork(BOOKING_DEAD_LETTER_QUEUE, { wait: true }).catch(() => {});
        await holds.stop();
        await pool.close();
        await egress?.close();
      })();
      return stopped;
    },
  };
}
