// Repeated client-authentication failures from one source for one client id are slowed down:
// after `limit` failures within `windowMs`, that pair is refused until the window ends. The count
// is in memory, per process (documented in docs/oauth.md); it guards against online guessing, which
// 256-bit secrets make hopeless anyway, and against noisy misconfigured clients.
//
// Anyone can add entries (any client id, from any address), so the map has a hard cap. Beyond it,
// entries whose window has ended go first, then the oldest that block nobody, and only when every
// entry is blocking, the oldest of those: a flood of one-off failures cannot free a pair that is
// being throttled.
export class FailureThrottle {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #entries = new Map<string, { failures: number; since: number }>();

  constructor(limit = 10, windowMs = 5 * 60_000, maxEntries = 10_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
    this.#maxEntries = maxEntries;
  }

  /** How many pairs are remembered (never more than the cap). */
  get size(): number {
    return this.#entries.size;
  }

  /** Seconds until `key` may try again, or 0 when it may now. */
  blockedFor(key: string, now = Date.now()): number {
    const entry = this.#entries.get(key);
    if (!entry) return 0;
    if (now - entry.since >= this.#windowMs) {
      this.#entries.delete(key);
      return 0;
    }
    return entry.failures >= this.#limit ? Math.ceil((entry.since + this.#windowMs - now) / 1000) : 0;
  }

  fail(key: string, now = Date.now()): void {
    const entry = this.#entries.get(key);
    if (!entry || now - entry.since >= this.#windowMs) this.#entries.set(key, { failures: 1, since: now });
    else entry.failures++;
    if (this.#entries.size > this.#maxEntries) this.#shrink(now);
  }

  /** Down to 90% of the cap, so that a sustained flood pays for a pass over the map only once in a while. */
  #shrink(now: number): void {
    const target = Math.floor(this.#maxEntries * 0.9);
    const entries = this.#entries;
    for (const [key, entry] of entries) if (now - entry.since >= this.#windowMs) entries.delete(key);
    for (const [key, entry] of entries) {
      if (entries.size <= target) return;
      if (entry.failures < this.#limit) entries.delete(key);
    }
    for (const key of entries.keys()) {
      if (entries.size <= target) return;
      entries.delete(key);
    }
  }
}
