import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { NewAuditEvent } from '../jobs/audit.ts';
import { recordDecision, transition, type TransitionInput } from '../jobs/transition.ts';
import { DomainError } from '../jobs/types.ts';
import type { GuardEvents, GuardLayer } from './guard/events.ts';

// Everything one run writes to its job: each decision becomes an audit event, in order, through
// recordDecision()/transition(), fenced by the run id so that a run whose job was taken over writes
// nothing more. It also keeps attemptCount and usedFallback in step with the events it writes.

/** Guard events per run beyond which a hostile page is only counted, not logged event by event. */
const MAX_GUARD_EVENTS = 60;

export class RunSuperseded extends Error {
  constructor(jobId: string) {
    super(`job ${jobId} was taken over by another run`);
    this.name = 'RunSuperseded';
  }
}

export class JobRecorder implements GuardEvents {
  readonly jobId: string;
  readonly runId: string;
  attemptCount: number;
  usedFallback: boolean;
  /** The provider the run is working with now; guard events are attributed to it. */
  provider: string | null = null;
  readonly #db: Kysely<DB>;
  readonly #onSuperseded: () => void;
  #chain: Promise<void> = Promise.resolve();
  #failure: unknown = null;
  #guardEvents = 0;
  #guardDropped = 0;

  constructor(db: Kysely<DB>, jobId: string, runId: string, counters: { attemptCount: number; usedFallback: boolean }, onSuperseded: () => void) {
    this.#db = db;
    this.jobId = jobId;
    this.runId = runId;
    this.attemptCount = counters.attemptCount;
    this.usedFallback = counters.usedFallback;
    this.#onSuperseded = onSuperseded;
  }

  /** Appends an event after those already queued; resolves once it is written. */
  record(event: NewAuditEvent, set?: TransitionInput['set']): Promise<void> {
    return this.#enqueue(() => recordDecision(this.#db, this.jobId, event, set, { runId: this.runId }));
  }

  /** Changes the job's status (after every queued event), fenced by this run. */
  transition(input: Omit<TransitionInput, 'runId'>): Promise<void> {
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
    this.#guard({ type: 'action_denied', message, ...this.#by(), data: { layer } });
  }

  allowed(message: string): void {
    this.#guard({ type: 'action_allowed', message, ...this.#by(), data: { layer: 'driver' } });
  }

  #by(): { providerId?: string } {
    return this.provider ? { providerId: this.provider } : {};
  }

  #guard(event: NewAuditEvent): void {
    if (this.#guardEvents >= MAX_GUARD_EVENTS) {
      this.#guardDropped += 1;
      return;
    }
    this.#guardEvents += 1;
    if (this.#guardEvents === MAX_GUARD_EVENTS) event = { ...event, message: `${event.message} (further guard events of this run are counted, not listed)` };
    void this.record(event).catch(() => {});
  }

  /** Guard events left out of the log after the cap (reported once at the end of the run). */
  get droppedGuardEvents(): number {
    return this.#guardDropped;
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
