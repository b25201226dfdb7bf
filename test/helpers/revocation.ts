import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { apiKeyCacheOf } from '../../src/auth/api-key-cache.ts';
import { call, type Reply } from './http.ts';
import { assertApiError } from './api-assert.ts';
import type { TestService } from './service.ts';
import { until } from './wait.ts';

/**
 * A key revoked in another process (`revoke`: the CLI, or revokeApiKey on another database handle)
 * is refused by the service, although it was verified a moment before (and cached, if the cache is
 * on). The service hears of it asynchronously — a pg_notify on PostgreSQL, the CLI's connection to
 * PGlite's socket turning the cache off — so the refusal is polled for, up to `withinMs`.
 *
 * A poll as long as the cache's TTL (5 s) would pass even if no revocation ever reached the
 * service: the cached entry expires and the database refuses the key. So when the key was cached,
 * the service must also have heard: its cache's generation moved (the key evicted, or the cache
 * turned off). An entry's expiry moves nothing.
 */
export async function assertRefusedOnceRevokedElsewhere(service: TestService, path: string, key: string, revoke: () => Promise<void>, withinMs = 5_000): Promise<void> {
  const cache = apiKeyCacheOf(service.services.db);
  const [wasOn, generationBefore] = [cache?.enabled ?? false, cache?.generation];
  const verified = await call(service.url, 'GET', path, { key });
  assert.equal(verified.status, 200, `the key works before it is revoked: ${verified.text.slice(0, 300)}`);
  const generation = cache?.generation;
  // On throughout, with nothing evicted meanwhile: the key is in the cache now.
  const cached = wasOn && cache!.enabled && generation === generationBefore;
  await revoke();
  const deadline = Date.now() + withinMs;
  let reply: Reply;
  for (;;) {
    reply = await call(service.url, 'GET', path, { key });
    if (reply.status !== 200 || Date.now() > deadline) break;
    await sleep(20);
  }
  assertApiError(reply, 401, 'invalid_api_key');
  if (cached) await until('the revocation reached the service: its cache evicted the key or turned off (not merely let it expire)', () => cache!.generation !== generation, Math.max(0, deadline - Date.now()));
}
