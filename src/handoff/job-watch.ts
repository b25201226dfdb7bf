import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { toJob } from '../jobs/service.ts';
import type { Job } from '../jobs/types.ts';
import { jobRowsChangedSince } from '../jobs/rows.ts';

// Live updates for the pages (a handoff in progress, a person's bookings): one timer per process
// reads the jobs someone is looking at and tells each listener when its job changed. Reading the
// database, rather than listening inside the executor, keeps it true whichever process moved the job.

type Listener = (job: Job) => void;

/** How often watched jobs are read while anyone watches (no reads at all otherwise). */
const DEFAULT_INTERVAL_MS = 500;
/** Clock and commit-order slack when reading "changed since": rows are de-duplicated by updated_at. */
const SLACK_MS = 5_000;

export class JobWatcher {
  readonly #db: Kysely<DB>;
  readonly #intervalMs: number;
  readonly #byJob = new Map<string, Set<Listener>>();
  readonly #byOwner = new Map<number, Set<Listener>>();
  readonly #seen = new Map<string, number>();
  /** Rows updated since this instant are read (it trails the clock by SLACK_MS). */
  #cursor = Date.now() - SLACK_MS;
  #timer: NodeJS.Timeout | null = null;
  #reading = false;

  constructor(db: Kysely<DB>, intervalMs = DEFAULT_INTERVAL_MS) {
    this.#db = db;
    this.#intervalMs = intervalMs;
  }

  /** Calls `listener` whenever the job changes (status, decisions, hold). Returns the unsubscribe. */
  watchJob(jobId: string, listener: Listener): () => void {
    return this.#add(this.#byJob, jobId, listener);
  }

  /** Calls `listener` for every job of this user that is created or changes. */
  watchOwner(userId: number, listener: Listener): () => void {
    return this.#add(this.#byOwner, userId, listener);
  }

  close(): void {
    this.#byJob.clear();
    this.#byOwner.clear();
    this.#stop();
  }

  #add<K>(map: Map<K, Set<Listener>>, key: K, listener: Listener): () => void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(listener);
    this.#start();
    return () => {
      set.delete(listener);
      if (set.size === 0 && map.get(key) === set) map.delete(key);
      if (this.#byJob.size === 0 && this.#byOwner.size === 0) this.#stop();
    };
  }

  #start(): void {
    if (this.#timer) return;
    this.#cursor = Date.now() - SLACK_MS;
    this.#timer = setInterval(() => void this.#read(), this.#intervalMs);
    this.#timer.unref();
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = null;
    this.#seen.clear();
  }

  async #read(): Promise<void> {
    if (this.#reading) return;
    this.#reading = true;
    try {
      const jobIds = [...this.#byJob.keys()];
      const owners = [...this.#byOwner.keys()];
      if (jobIds.length === 0 && owners.length === 0) return;
      const readAt = Date.now();
      const since = new Date(this.#cursor);
      const rows = await jobRowsChangedSince(this.#db, since, { jobIds, ownerUserIds: owners });
      for (const row of rows) {
        const stamp = row.updated_at.getTime();
        if (this.#seen.get(row.id) === stamp) continue;
        this.#seen.set(row.id, stamp);
        const job = toJob(row);
        for (const listener of this.#byJob.get(row.id) ?? []) listener(job);
        if (row.owner_user_id !== null) for (const listener of this.#byOwner.get(row.owner_user_id) ?? []) listener(job);
      }
      this.#cursor = readAt - SLACK_MS;
      // Forget rows that can no longer come back through the cursor.
      for (const [id, stamp] of this.#seen) if (stamp < this.#cursor) this.#seen.delete(id);
    } catch {
      // The database blinked: the next tick reads again from the same cursor.
    } finally {
      this.#reading = false;
    }
  }
}
