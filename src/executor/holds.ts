import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { releaseRunningContext } from '../browser/running-tabs.ts';
import type { DB } from '../db/schema.ts';
import { holdStateIn, markHoldsSeen, recordPaymentSubmitted, releasablePausedJobs, statusesOf, unvouchForHold, vouchForHold } from '../jobs/hold-rows.ts';
import { TERMINAL_STATUSES, transition } from '../jobs/transition.ts';
import { DomainError } from '../jobs/types.ts';
import type { ProviderRegistry } from '../driver/registry.ts';
import { Session, type CancelResult, type HeldSession, type HoldInput } from './held-session.ts';
import { cancelEnding, endingColumns, expiryEnding, lossEnding, type Canceller } from './hold-endings.ts';
import { HEARTBEAT_MS, MAX_POSTPONE_MS, STALE_SECONDS, STOP_WAIT_MS, SWEEP_MS, VOUCH_SECONDS } from './hold-timings.ts';

// Held sessions. A job paused at the card-code step keeps its browser context open on the provider's
// payment page, in the process that ran it, until the person pays (the provider's confirmation page
// is detected: completed), cancels, or the hold runs out (error, handoff_expired). Each process tells
// the database it still holds its sessions (hold_seen_at, every few seconds); a paused job whose holder
// stopped saying so (the process died) is released by any other process (error, hold_lost). A job
// another process settled meanwhile (a cancel that arrived there) has its tab here closed at the
// next heartbeat.
//
// Other processes see the hold only through its row, so the holder writes there what they must
// respect: while a payment is in flight its hold_seen_at is vouched ahead (now + VOUCH_SECONDS:
// their sweeps leave it alone, a cancel reaching them is refused), and once the person submitted
// one, payment_submitted_at (an ending they record is then worded as uncertain). Whatever another
// process recorded, the provider's confirmation on the held tab has the last word: the job is
// completed (confirmAfterHoldEnded).

export interface HoldRegistryOptions {
  /** MAX_POSTPONE_MS unless set (tests shorten it). */
  maxPostponeMs?: number;
}

export class HoldRegistry {
  readonly db: Kysely<DB>;
  readonly log: Logger;
  /** This process, as named in jobs.hold_instance. */
  readonly instanceId: string;
  readonly maxPostponeMs: number;
  /** Where provider names come from, for endings recorded from the row alone (a sweep, a cancel in a process not holding the tab). */
  readonly #providers: ProviderRegistry;
  /** The service is stopping: a failed write is not tried again. */
  stopping = false;
  readonly #sessions = new Map<string, Session>();
  #timers: NodeJS.Timeout[] = [];

  constructor(db: Kysely<DB>, log: Logger, instanceId: string, providers: ProviderRegistry, options: HoldRegistryOptions = {}) {
    this.db = db;
    this.#providers = providers;
    this.log = log;
    this.instanceId = instanceId;
    this.maxPostponeMs = options.maxPostponeMs ?? MAX_POSTPONE_MS;
  }

  get(jobId: string): HeldSession | undefined {
    return this.#sessions.get(jobId);
  }

  list(): HeldSession[] {
    return [...this.#sessions.values()];
  }

  /** Registers a hold before the job is marked paused, so the handoff finds it as soon as the status says so. */
  add(input: HoldInput): HeldSession {
    // The tab is the person's from here: the run's read-only view (sessionUrl) stops showing it.
    releaseRunningContext(input.jobId);
    const session = new Session(this, input);
    this.#sessions.set(input.jobId, session);
    session.start();
    return session;
  }

  /** Drops a session without changing its job (used when a pause could not be recorded). */
  forget(jobId: string): void {
    this.#sessions.get(jobId)?.detach();
    this.#sessions.delete(jobId);
  }

  /** Heartbeats for this process's holds, and the sweep that releases other processes' dead or expired holds. */
  start(options: { sweep: boolean }): void {
    this.#timers.push(setInterval(() => void this.heartbeat().catch(() => {}), HEARTBEAT_MS));
    if (options.sweep) {
      this.#timers.push(setInterval(() => void this.sweep().catch((error: unknown) => this.log.warn({ err: { message: (error as Error).message } }, 'hold sweep failed')), SWEEP_MS));
      void this.sweep().catch(() => {});
    }
    for (const timer of this.#timers) timer.unref();
  }

  /**
   * A hold with a payment in flight says so to the other processes: its hold_seen_at is set ahead
   * (now + VOUCH_SECONDS), which their sweeps read as "still held, do not end", and a cancel there
   * as "a payment is being processed". Written as the payment leaves, and at every heartbeat while
   * it is in flight (or the expiry waits for it). A holder that dies stops vouching, and the usual
   * staleness rule releases the hold.
   */
  async vouch(jobId: string): Promise<void> {
    await vouchForHold(this.db, this.instanceId, jobId, VOUCH_SECONDS);
  }

  /** The payment has been answered: the hold is no longer vouched for ahead (a cancel elsewhere may go through again). */
  async unvouch(jobId: string): Promise<void> {
    await unvouchForHold(this.db, this.instanceId, jobId);
  }

  /** The person submitted a payment from the held tab: whoever records the end of the hold words it as uncertain. */
  async recordSubmission(jobId: string): Promise<void> {
    await recordPaymentSubmitted(this.db, this.instanceId, jobId);
  }

  async heartbeat(): Promise<void> {
    const ids = [...this.#sessions.keys()];
    if (ids.length === 0) return;
    const vouched = ids.filter((id) => this.#sessions.get(id)?.vouching());
    const seen = ids.filter((id) => !vouched.includes(id));
    // Never back from a vouch written meanwhile (a payment that left as this heartbeat began); the
    // session takes its vouch back itself once the payment has been answered (unvouch).
    await markHoldsSeen(this.db, this.instanceId, seen);
    await Promise.all(vouched.map((id) => this.#sessions.get(id)?.renewVouch()));
    // A job ended by another process (a cancel handled where the session is not held, its sweep)
    // changed only the row: the tab here stays open, and someone connected to it could still pay
    // for a booking that has ended. Close it, once a payment in flight on it has been answered.
    // (A job still `running` is a pause being recorded.)
    const statuses = await statusesOf(this.db, ids);
    const settled = ids.filter((id) => {
      const status = statuses.get(id);
      return status === undefined || (status !== 'paused_payment' && TERMINAL_STATUSES.includes(status));
    });
    await Promise.all(settled.map(async (id) => {
      const session = this.#sessions.get(id);
      if (!session) return;
      this.log.info({ jobId: id }, 'closing a held session whose job ended in another process');
      // The row already says how the job ended: the session's own transition is refused and writes
      // nothing, unless the tab shows the provider's confirmation (then the job is completed).
      await session.endedElsewhere();
    }));
  }

  /** Paused jobs held by no live process (or past their hold) become errors. Returns how many. */
  async sweep(): Promise<number> {
    const rows = await releasablePausedJobs(this.db, STALE_SECONDS);
    let released = 0;
    if (rows.length) await this.#providers.refreshNames();
    for (const row of rows) {
      if (this.#sessions.has(row.id)) continue;
      const providerId = row.provider_id ?? undefined;
      const P = this.#providers.name(providerId) ?? 'the provider';
      // A payment the person submitted there is uncertain: the holder that saw it is gone.
      const ending = row.expired
        ? expiryEnding(providerId, P, null, row.submitted)
        : lossEnding(providerId, P, 'the process holding this booking\'s browser session stopped', null, row.submitted);
      try {
        await transition(this.db, row.id, { to: 'error', from: ['paused_payment'], event: ending.event, set: endingColumns(ending, providerId ?? null) });
        released += 1;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return released;
  }

  /**
   * A cancel that reached a process not holding the session: the row is ended here, and the holder
   * closes its tab at its next heartbeat. Refused while the holder vouches for a payment in flight
   * (decided under the row's lock, so a vouch written meanwhile is seen); worded as uncertain when
   * the person submitted one.
   */
  async cancelElsewhere(jobId: string, by: Canceller = 'person'): Promise<CancelResult> {
    await this.#providers.refreshNames();
    try {
      await transition(this.db, jobId, {
        to: 'error',
        from: ['paused_payment'],
        decide: async (trx) => {
          const row = await holdStateIn(trx, jobId);
          if (row.vouched) throw new DomainError('payment_in_flight', `job ${jobId} has a payment in flight in the process holding it`);
          const providerId = row.provider_id ?? undefined;
          const ending = cancelEnding(providerId, this.#providers.name(providerId) ?? 'the provider', null, row.submitted, by);
          return { event: ending.event, set: endingColumns(ending, providerId ?? null) };
        },
      });
      return 'cancelled';
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'payment_in_flight') return 'payment_in_flight';
      return 'ended';
    }
  }

  /**
   * Draining (a rolling restart): resolves once every hold of this process has ended (paid,
   * cancelled, run out) or `ms` has passed. The holds are served meanwhile as ever.
   */
  async untilEmpty(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.#sessions.size > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now())));
        for (const session of this.#sessions.values()) void session.done.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** At shutdown: a browser session cannot outlive its process, so its holds end now (a payment in flight is given a few seconds to be answered). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    await Promise.all([...this.#sessions.values()].map((s) => s.lose('the service stopped', STOP_WAIT_MS)));
  }
}
