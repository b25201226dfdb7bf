// Repeated client-authentication failures from one source for one client id are slowed down:
// after `limit` failures within `windowMs`, that pair is refused until the window ends. The count
// is in memory, per process (documented in docs/oauth.md); it guards against online guessing, which
// 256-bit secrets make hopeless anyway, and against noisy misconfigured clients.
export class FailureThrottle {
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #entries = new Map<string, { failures: number; since: number }>();

  constructor(limit = 10, windowMs = 5 * 60_000) {
    this.#limit = limit;
    this.#windowMs = windowMs;
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
    if (this.#entries.size > 10_000) this.#sweep(now);
  }

  #sweep(now: number): void {
    for (const [key, entry] of this.#entries) if (now - entry.since >= this.#windowMs) this.#entries.delete(key);
  }
}
