import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { NewAuditEvent } from '../jobs/audit.ts';
import { recordDecision, transition, type TransitionInput } from '../jobs/transition.ts';
import { DomainError } from '../jobs/types.ts';
import { LAYER_NAMES, type GuardEvents, type GuardLayer } from './guard/events.ts';

// Everything one run writes to its job: each decision becomes an audit event, in order, through
// recordDecision()/transition(), fenced by the run id so that a run whose job was taken over writes
// nothing more. It also keeps attemptCount and usedFallback in step with the events it writes.

/**
 * In-page and network blocks per run beyond which a hostile page is only counted, not logged event by
 * event. Driver-layer events are never capped: there are a few per step, and one of them is the pause.
 */
export const MAX_PAGE_GUARD_EVENTS = 60;

export class RunSuperseded extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was taken over by another run`);
    this.name = 'RunSuperseded';
  }
}

export class JobRecorder implements GuardEvents {
  readonly jobId: string;
  readonly runId: string;
  usedFallback: boolean;
  /** The provider the run is working with now; guard events are attributed to it. */
  provider: string | null = null;
  readonly #db: Kysely<DB>;
  readonly #onSuperseded: () => void;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  #pageGuardEvents = 0;
  #dropped: Partial<Record<GuardLayer, number>> = {};

  constructor(db: Kysely<DB>, jobId: string, runId: string, counters: { usedFallback: boolean }, onSuperseded: () => void) {
    this.#db = db;
    this.jobId = jobId;
    this.runId = runId;
    this.usedFallback = counters.usedFallback;
    this.#onSuperseded = onSuperseded;
  }

  /** Appends an event after those already queued; resolves once it is written. */
  record(event: NewAuditEvent, set?: TransitionInput['set']): Promise<void> {
    return this.#enqueue(() => recordDecision(this.#db, this.jobId, event, set, { runId: this.runId }));
  }

  /**
   * A step_attempt event, counted in attemptCount by the database in the same write: a count read
   * when the run started could be stale by then (a previous run of the job, taken over, may have
   * written a try of its own since), and writing it back would lose that try.
   */
  recordAttempt(event: NewAuditEvent): Promise<void> {
    // Kysely takes an expression for a column's new value; the row type names only plain values.
    return this.record(event, { attempt_count: sql<number>`attempt_count + 1` as unknown as number });
  }

  /** Changes the job's status (after every queued event), fenced by this run. */
  transition(input: Omit<TransitionInput, 'runId'>): Promise<void> {
    // The run's outcome: first say how many guard events the cap kept out of the log.
    if (input.to !== 'running') this.#reportDropped();
    return this.#enqueue(async () => {
      await transition(this.#db, this.jobId, { ...input, runId: this.runId });
    });
  }

  /** Waits for every queued write; rethrows the first that failed. */
  async flush(): Promise<void> {
    await this.#chain;
    if (this.#failure) throw this.#failure;
  }

  // GuardEvents: called synchronously from the page API and the browser bindings.
  denied(layer: GuardLayer, message: string): void {
    const event: NewAuditEvent = { type: 'action_denied', message, ...this.#by(), data: { layer } };
    if (layer === 'driver') return void this.record(event).catch(() => {});
    if (this.#pageGuardEvents >= MAX_PAGE_GUARD_EVENTS) {
      this.#dropped[layer] = (this.#dropped[layer] ?? 0) + 1;
      return;
    }
    this.#pageGuardEvents += 1;
    if (this.#pageGuardEvents === MAX_PAGE_GUARD_EVENTS) event.message = `${message} (further in-page and network blocks of this run are counted, not listed)`;
    void this.record(event).catch(() => {});
  }

  allowed(message: string): void {
    void this.record({ type: 'action_allowed', message, ...this.#by(), data: { layer: 'driver' } }).catch(() => {});
  }

  #by(): { providerId?: string } {
    return this.provider ? { providerId: this.provider } : {};
  }

  /** In-page and network blocks left out of the log by the cap, not yet reported. */
  get droppedGuardEvents(): number {
    return (this.#dropped.page ?? 0) + (this.#dropped.network ?? 0);
  }

  #reportDropped(): void {
    const dropped = this.droppedGuardEvents;
    if (dropped === 0) return;
    const byLayer = this.#dropped;
    this.#dropped = {};
    const parts = (['page', 'network'] as const).filter((l) => byLayer[l]).map((l) => `${byLayer[l]} by the ${LAYER_NAMES[l]}`);
    void this.record({
      type: 'action_denied',
      message: `Payment guard: ${dropped} more ${dropped === 1 ? 'block' : 'blocks'} in this run (${parts.join(', ')}) beyond the ${MAX_PAGE_GUARD_EVENTS} listed were counted, not listed.`,
      ...this.#by(),
      data: { droppedGuardEvents: dropped, dropped: byLayer },
    }).catch(() => {});
  }

  #enqueue(write: () => Promise<void>): Promise<void> {
    const next = this.#chain.then(async () => {
      if (this.#failure) throw this.#failure;
      try {
        await write();
      } catch (error) {
        if (error instanceof DomainError && error.code === 'run_superseded') {
          this.#failure = new RunSuperseded(this.jobId);
          this.#onSuperseded();
        } else {
          this.#failure = error;
        }
        throw this.#failure;
      }
    });
    this.#chain = next.catch(() => {});
    return next;
  }
}
