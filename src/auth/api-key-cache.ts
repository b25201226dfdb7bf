import type { ApiKeyPrincipal } from './api-keys.ts';

// API keys verified in the last few seconds, so that a client polling a job does not cost a
// database round trip for its key on every call (the read path's largest cost after the read).
//
// Revocation stays immediate. A revocation in this process evicts before revokeApiKey() returns;
// one in another process is announced on a notification channel in the revoking transaction, and
// evicted when it arrives. The cache is used only while such announcements can reach it
// (Database.listen): on PostgreSQL while the listening connection is up, which a heartbeat on it
// checks every few seconds, so a database that stops answering without closing the connection
// turns the cache off too; on PGlite while no other process (the CLI) is connected to the shared
// socket. Whenever that stops being true the cache is emptied and every request goes to the
// database, which is also what makes authentication fail closed when the database is unreachable.
// Unknown and revoked keys are never cached.

export const API_KEY_REVOKED_CHANNEL = 'concierge_api_key_revoked';

// One cache per database handle, found from the handle itself: every caller that verifies or
// revokes keys with that handle (REST, MCP, the web app) shares it without passing it around, and
// a revocation in this process evicts before revokeApiKey() returns.
const caches = new WeakMap<object, ApiKeyCache>();

export function attachApiKeyCache(db: object, cache: ApiKeyCache): void {
  caches.set(db, cache);
}

export function apiKeyCacheOf(db: object): ApiKeyCache | undefined {
  return caches.get(db);
}

interface Entry {
  principal: ApiKeyPrincipal;
  expiresAt: number;
}

export class ApiKeyCache {
  readonly ttlMs: number;
  readonly maxEntries: number;
  #entries = new Map<string, Entry>();
  #enabled = false;
  #generation = 0;

  constructor(options: { ttlMs?: number; maxEntries?: number } = {}) {
    this.ttlMs = options.ttlMs ?? 5_000;
    this.maxEntries = options.maxEntries ?? 10_000;
  }

  /** Whether lookups may be answered from memory: only while revocations can reach us. */
  get enabled(): boolean {
    return this.#enabled;
  }

  enable(): void {
    this.#enabled = true;
  }

  /** Stops answering from memory and forgets everything: revocations may have been missed. */
  disable(): void {
    this.#enabled = false;
    this.#generation++;
    this.#entries.clear();
  }

  /**
   * Read before a database lookup and handed back to set(): a revocation that arrives while the
   * lookup is in flight changes it, and the (possibly stale) result is then not cached.
   */
  get generation(): number {
    return this.#generation;
  }

  get(hash: string, now = Date.now()): ApiKeyPrincipal | undefined {
    if (!this.#enabled) return undefined;
    const entry = this.#entries.get(hash);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.#entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  set(hash: string, principal: ApiKeyPrincipal, generation: number, now = Date.now()): void {
    if (!this.#enabled || generation !== this.#generation) return;
    if (this.#entries.size >= this.maxEntries) {
      // Maps iterate in insertion order: the first entry is the oldest.
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(hash, { principal, expiresAt: now + this.ttlMs });
  }

  /** A key was revoked (or may have been): forget it, and refuse results of lookups in flight. */
  evict(hash: string): void {
    this.#generation++;
    this.#entries.delete(hash);
  }

  get size(): number {
    return this.#entries.size;
  }
}
