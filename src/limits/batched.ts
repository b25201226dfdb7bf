import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import { sha256 } from '../security/secrets.ts';
import type { Limit, Verdict } from './counter.ts';

// The per-minute request limits of API keys and OAuth clients, counted on every authenticated call.
// An atomic database write per request (counter.ts, right for the OAuth lockout, where a race is an
// attack) would put a write on every read and make every call wait on the database. Here each
// node counts in memory and adds its counts to the shared row every FLUSH_MS, reading back the
// total of all nodes: the decision is taken locally from that total plus this node's own count
// since. N nodes grant one allowance, give or take what the others admit between two flushes.
// Windows are fixed wall-clock minutes, so every node agrees on which window a request is in.

const FLUSH_MS = 250;

interface Entry {
  /** The shared row's key (the subject hashed, as counter.ts keys its rows), computed once per window. */
  row: string;
  /** The total of every node for this window, as of this node's last flush. */
  known: number;
  /** Admitted here and not yet added to the shared row. */
  pending: number;
  windowEnds: number;
}

export class RequestCounter {
  readonly #db: Kysely<DB>;
  readonly #entries = new Map<string, Entry>();
  #timer: NodeJS.Timeout | null = null;
  #flushing: Promise<void> | null = null;

  constructor(db: Kysely<DB>) {
    this.#db = db;
  }

  /** Counts one request of `subject` on `limit` when it is within it; says whether it is, and what is left. */
  count(limit: Limit, subject: string, now = Date.now()): Verdict {
    const windowMs = limit.windowSeconds * 1000;
    const window = Math.floor(now / windowMs);
    // Looked up by the subject itself: the hash is taken once per subject and window, not per call.
    const key = `${limit.name}\u0000${subject}\u0000${window}`;
    let entry = this.#entries.get(key);
    if (!entry) this.#entries.set(key, (entry = { row: `${limit.name}:${sha256(subject)}:${window}`, known: 0, pending: 0, windowEnds: (window + 1) * windowMs }));
    const count = entry.known + entry.pending + 1;
    const allowed = count <= limit.max;
    if (allowed) entry.pending += 1;
    // Refused or not, a flush soon brings this node the other nodes' counts.
    this.#schedule();
    return { allowed, count, remaining: Math.max(0, limit.max - count), resetSeconds: Math.max(1, Math.ceil((entry.windowEnds - now) / 1000)) };
  }

  #schedule(): void {
    if (this.#timer === null) this.#timer = setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /**
   * Adds this node's counts to the shared rows and reads back every node's totals, for every window
   * still open (one that only refused is refreshed too). A failure keeps the counts for the next flush.
   */
  async flush(): Promise<void> {
    this.#timer = null;
    if (this.#flushing) return this.#flushing;
    this.#flushing = (async () => {
      const now = Date.now();
      for (const [key, entry] of this.#entries) {
        if (entry.windowEnds <= now) {
          this.#entries.delete(key);
          continue;
        }
        const adding = entry.pending;
        try {
          const { rows } = await sql<{ count: number }>`
            insert into rate_limits as r (key, count, window_ends) values (${entry.row}, ${adding}, ${new Date(entry.windowEnds)})
            on conflict (key) do update set count = r.count + excluded.count
            returning count`.execute(this.#db);
          entry.pending -= adding;
          entry.known = Number(rows[0]!.count);
        } catch {
          // The database is away: counts stay pending here, and calls are decided from what is known.
          break;
        }
      }
    })().finally(() => {
      this.#flushing = null;
      if ([...this.#entries.values()].some((e) => e.pending > 0)) this.#schedule();
    });
    return this.#flushing;
  }
}

const counters = new WeakMap<object, RequestCounter>();

/** The process's request counter for this database handle. */
export function requestCounterOf(db: Kysely<DB>): RequestCounter {
  let counter = counters.get(db);
  if (!counter) counters.set(db, (counter = new RequestCounter(db)));
  return counter;
}
