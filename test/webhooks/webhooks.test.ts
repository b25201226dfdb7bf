import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { encryptSecret, newSigningSecret } from '../../src/webhooks/secrets.ts';
import { assertApiError, assertChangesNothing, assertNoLeak } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { auditOf, createJob, pauseForPayment as pause } from '../executor/helpers.ts';
import { startReceiver, type Received, type Receiver } from './receiver.ts';
import { startedTogether } from '../helpers/together.ts';

// Webhooks end to end: an organisation registers a local receiver, its jobs' status changes are
// delivered signed (verified here with the standardwebhooks library, as a client would), retried on
// failure with the same webhook-id, logged per endpoint, replayed, and survive a restart. In
// production mode (WEBHOOK_ALLOW_PRIVATE=false) private targets are refused.

const FAST = { WEBHOOK_RETRY_SCHEDULE: '0,0,0,0,0' };

function verify(secret: string, received: Received): { type: string; timestamp: string; data: any } {
  const headers = { 'webhook-id': String(received.headers['webhook-id']), 'webhook-timestamp': String(received.headers['webhook-timestamp']), 'webhook-signature': String(received.headers['webhook-signature']) };
  return new Webhook(secret).verify(received.body, headers) as { type: string; timestamp: string; data: any };
}

for (const backend of BACKENDS) {
  describe(`webhooks on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    let otherKey: string;
    let receiver: Receiver;
    before(async () => {
      [service, receiver] = await startedTogether([startTestService(backend.url, FAST), startReceiver()]);
      [key, otherKey] = await Promise.all([service.mintKey('Acme Travel'), service.mintKey('Other Org')]);
    });
    after(async () => {
      await service?.close();
      await receiver?.close();
    });

    const register = async (url: string, as = key) => {
      const reply = await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key: as, body: { url } });
      assert.equal(reply.status, 201, reply.text);
      return reply.body as { id: string; secret: string; url: string; status: string };
    };
    const remove = (id: string, as = key) => call(service.url, 'DELETE', `/api/v1/webhook-endpoints/${id}`, { key: as });
    const deliveries = async (id: string) => (await call(service.url, 'GET', `/api/v1/webhook-endpoints/${id}/deliveries`, { key })).body.deliveries as any[];

    test('register, list and remove, scoped to the organisation; the secret is shown once', async () => {
      const endpoint = await register(`${receiver.url}/a`);
      assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
      assert.equal(endpoint.status, 'enabled');
      const listed = await call(service.url, 'GET', '/api/v1/webhook-endpoints', { key });
      assert.equal(listed.status, 200);
      const mine = listed.body.endpoints.find((e: { id: string }) => e.id === endpoint.id);
      assert.ok(mine);
      assert.equal(mine.secret, undefined, 'the secret is never listed');
      assert.ok(!listed.text.includes(endpoint.secret));
      const row = await service.services.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpoint.id).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(endpoint.secret.slice(6)), 'stored encrypted, not in clear');

      assert.deepEqual((await call(service.url, 'GET', '/api/v1/webhook-endpoints', { key: otherKey })).body.endpoints, []);
      assertApiError(await remove(endpoint.id, otherKey), 404, 'webhook_endpoint_not_found');
      assertApiError(await call(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/rotate`, { key: otherKey }), 404, 'webhook_endpoint_not_found');
      assert.equal((await remove(endpoint.id)).status, 204);
      assertApiError(await remove(endpoint.id), 404, 'webhook_endpoint_not_found');
      assertApiError(await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: 'not a url' } }), 400, 'invalid_request');
      assertApiError(await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: 'ftp://example.com/x' } }), 400, 'invalid_request');
      assertApiError(await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: {} }), 400, 'invalid_request');
    });

    test('paused_payment (with handoffUrl), a cancel and a completion arrive signed; they verify with standardwebhooks', async () => {
      const endpoint = await register(`${receiver.url}/b`);
      const mine = () => receiver.received.filter((r) => r.headers['webhook-id'] && verifyOrNull(endpoint.secret, r));
      const jobId = await createJob(service, key, restaurantRequest());
      await pause(service, jobId);
      await until('the paused_payment event arrived', () => mine().length >= 1, 20_000);
      const paused = verify(endpoint.secret, mine()[0]!);
      assert.equal(paused.type, 'job.paused_payment');
      assert.equal(paused.data.jobId, jobId);
      assert.equal(paused.data.status, 'paused_payment');
      const job = (await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body;
      assert.equal(paused.data.handoffUrl, job.handoffUrl, 'the same link the job shows');
      assert.equal(paused.data.profile, undefined, 'no traveller data');

      const cancelled = await call(service.url, 'POST', `/api/v1/execution-jobs/${jobId}/cancel`, { key });
      assert.equal(cancelled.status, 200, cancelled.text);
      await until('the error event arrived', () => mine().length >= 2, 20_000);
      const ended = verify(endpoint.secret, mine()[1]!);
      assert.equal(ended.type, 'job.error');
      assert.equal(ended.data.error.reason, 'cancelled_by_client');

      // Another organisation's job goes to its own endpoints only.
      const before = receiver.received.length;
      const otherJob = await createJob(service, otherKey, restaurantRequest());
      await pause(service, otherJob);
      const log = await deliveries(endpoint.id);
      assert.ok(log.every((d) => d.jobId === jobId), 'nothing of another organisation');
      assert.equal(receiver.received.length, before);

      const [first] = log.slice(-1);
      assert.equal(first.status, 'delivered');
      assert.equal(first.attempts, 1);
      assert.equal(first.responseCode, 200);
      assert.equal(typeof first.latencyMs, 'number');
      await remove(endpoint.id);
    });

    test('a receiver that fails then recovers: retried with the same webhook-id, nothing lost, duplicates dedupe', async () => {
      const endpoint = await register(`${receiver.url}/c`);
      receiver.answers = [500, 503, 200];
      const start = receiver.received.length;
      const jobId = await createJob(service, key, restaurantRequest());
      await pause(service, jobId);
      await until('delivered after two failures', async () => (await deliveries(endpoint.id))[0]?.status === 'delivered', 30_000, 100);
      const attempts = receiver.received.slice(start);
      assert.equal(attempts.length, 3);
      assert.equal(new Set(attempts.map((r) => r.headers['webhook-id'])).size, 1, 'one webhook-id across retries');
      for (const r of attempts) verify(endpoint.secret, r);
      const [log] = await deliveries(endpoint.id);
      assert.equal(log.attempts, 3);
      assert.equal(log.responseCode, 200);

      // A replay sends the same message again: the receiver's dedupe drops it.
      const replay = await call(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${log.id}/replay`, { key });
      assert.equal(replay.status, 202, replay.text);
      await until('the replay arrived', () => receiver.received.length > start + 3, 20_000);
      assert.equal(receiver.received.at(-1)!.headers['webhook-id'], log.id);
      const deduped = new Map(receiver.received.slice(start).map((r) => [r.headers['webhook-id'], verify(endpoint.secret, r)]));
      assert.equal(deduped.size, 1);
      assertApiError(await call(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/msg_nope/replay`, { key }), 404, 'webhook_delivery_not_found');

      // A delivery still being retried is not replayed beside its own retry chain.
      await until('the replay is recorded', async () => {
        const [again] = await deliveries(endpoint.id);
        return again?.status === 'delivered' && again.attempts === 1;
      }, 20_000, 100);
      const nextAttempt = new Date(Date.now() + 3_600_000);
      await service.services.db.updateTable('webhook_deliveries').set({ status: 'retrying', next_attempt_at: nextAttempt }).where('id', '=', log.id).execute();
      const busy = await assertChangesNothing(service, () => call(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/deliveries/${log.id}/replay`, { key }));
      assertApiError(busy, 409, 'webhook_delivery_in_progress');
      assert.match(busy.body.error.message, new RegExp(nextAttempt.toISOString().slice(0, 16)));
      await remove(endpoint.id);
    });

    test('rotation: the new secret is shown once; during the overlap deliveries verify with either secret, after it with the new one only', async () => {
      const endpoint = await register(`${receiver.url}/d`);
      const rotated = await call(service.url, 'POST', `/api/v1/webhook-endpoints/${endpoint.id}/rotate`, { key });
      assert.equal(rotated.status, 200, rotated.text);
      assert.notEqual(rotated.body.secret, endpoint.secret);
      assert.ok(rotated.body.previousSecretExpiresAt);
      const start = receiver.received.length;
      const jobId = await createJob(service, key, restaurantRequest());
      await pause(service, jobId);
      await until('delivered', () => receiver.received.length > start, 20_000);
      const got = receiver.received.at(-1)!;
      assert.equal(verify(rotated.body.secret, got).data.jobId, jobId);
      assert.equal(verify(endpoint.secret, got).data.jobId, jobId, 'the old secret still verifies during the overlap');
      // Once the overlap has ended, deliveries are signed with the new secret alone.
      await service.services.db.updateTable('webhook_endpoints').set({ previous_secret_expires_at: new Date(Date.now() - 1000) }).where('id', '=', endpoint.id).execute();
      const after = receiver.received.length;
      const later = await createJob(service, key, restaurantRequest());
      await pause(service, later);
      await until('delivered after the overlap', () => receiver.received.length > after, 20_000);
      const signed = receiver.received.at(-1)!;
      assert.equal(verify(rotated.body.secret, signed).data.jobId, later);
      assert.throws(() => verify(endpoint.secret, signed), 'the old secret no longer verifies');
      assert.equal(String(signed.headers['webhook-signature']).split(' ').length, 1, 'one signature');
      await remove(endpoint.id);
    });

    test('an endpoint failing for longer than WEBHOOK_DISABLE_AFTER_SECONDS is disabled, with an audit event', async () => {
      const endpoint = await register(`${receiver.url}/e`);
      receiver.answers = [500];
      // It has been failing for days (as its row says), and this delivery fails too.
      await service.services.db.updateTable('webhook_endpoints').set({ failing_since: new Date(Date.now() - 4 * 86_400_000) }).where('id', '=', endpoint.id).execute();
      const jobId = await createJob(service, key, restaurantRequest());
      await pause(service, jobId);
      await until('disabled', async () => (await call(service.url, 'GET', '/api/v1/webhook-endpoints', { key })).body.endpoints.find((e: { id: string }) => e.id === endpoint.id)?.status === 'disabled', 20_000, 100);
      const event = (await auditOf(service, key, jobId)).find((e) => e.type === 'webhook_endpoint_disabled');
      assert.ok(event, 'on the audit trail');
      assert.equal(event.endpointId, endpoint.id);
      receiver.answers = [200];
      await remove(endpoint.id);
    });
  });
}

function verifyOrNull(secret: string, received: Received): unknown {
  try {
    return verify(secret, received);
  } catch {
    return null;
  }
}

describe('webhook targets in production mode (WEBHOOK_ALLOW_PRIVATE=false)', () => {
  let service: TestService;
  let key: string;
  let receiver: Receiver;
  before(async () => {
    [service, receiver] = await startedTogether([startTestService('pglite:memory:', { ...FAST, WEBHOOK_ALLOW_PRIVATE: 'false' }), startReceiver()]);
    key = await service.mintKey();
  });
  after(async () => {
    await service?.close();
    await receiver?.close();
  });

  test('loopback, private, link-local and plain-http URLs are refused at registration', async () => {
    for (const url of ['https://127.0.0.1/hook', 'https://localhost/hook', 'https://10.0.0.8/hook', 'https://169.254.169.254/latest', 'https://[::1]/hook', 'https://foo.localhost/x', 'http://example.com/hook']) {
      const reply = await call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url } });
      assertApiError(reply, 400, 'invalid_request');
      assertNoLeak(reply);
    }
    assert.deepEqual((await call(service.url, 'GET', '/api/v1/webhook-endpoints', { key })).body.endpoints, []);
  });

  test('an endpoint that points inside at delivery time is not reached: the attempt is refused and logged', async () => {
    // As if its name had resolved to a public address at registration and to loopback now.
    const secret = newSigningSecret();
    const id = crypto.randomUUID();
    await service.services.db.insertInto('webhook_endpoints').values({ id, organization_name: 'Acme Travel', url: receiver.url, secret_ciphertext: encryptSecret(service.services.secretKey, secret) }).execute();
    const jobId = await createJob(service, key, restaurantRequest());
    await pause(service, jobId);
    await until('the attempt failed', async () => ((await call(service.url, 'GET', `/api/v1/webhook-endpoints/${id}/deliveries`, { key })).body.deliveries[0]?.attempts ?? 0) >= 1, 20_000, 100);
    const [log] = (await call(service.url, 'GET', `/api/v1/webhook-endpoints/${id}/deliveries`, { key })).body.deliveries;
    assert.match(log.error, /^refused: /);
    assert.equal(log.responseCode, null);
    assert.equal(receiver.received.length, 0, 'nothing reached the receiver');
  });
});

describe('webhook retries survive a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'concierge-webhooks-'));
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver([500]);
  });
  after(async () => {
    await receiver?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // The retry is due 10 s after the failure: the first service has stopped by then, so only the next one can send it.
  test('a delivery waiting for its retry when the service stops is sent by the next one, with the same webhook-id', async () => {
    const url = `pglite:${dir}`;
    const first = await startTestService(url, { WEBHOOK_RETRY_SCHEDULE: '10' });
    let deliveryId: string;
    try {
      const key = await first.mintKey();
      const created = await call(first.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: receiver.url } });
      assert.equal(created.status, 201, created.text);
      const jobId = await createJob(first, key, restaurantRequest());
      await pause(first, jobId);
      await until('the first attempt failed', () => receiver.received.length >= 1, 20_000);
      const row = await first.services.db.selectFrom('webhook_deliveries').selectAll().executeTakeFirstOrThrow();
      await until('its retry is scheduled', async () => (await first.services.db.selectFrom('webhook_deliveries').select('status').where('id', '=', row.id).executeTakeFirstOrThrow()).status === 'retrying', 10_000);
      deliveryId = row.id;
    } finally {
      await first.close();
    }
    receiver.answers = [200];
    const second = await startTestService(url, { WEBHOOK_RETRY_SCHEDULE: '10' });
    try {

      await until('delivered by the restarted service', async () => (await second.services.db.selectFrom('webhook_deliveries').select('status').where('id', '=', deliveryId).executeTakeFirstOrThrow()).status === 'delivered', 60_000, 200);
      assert.deepEqual([...new Set(receiver.received.map((r) => r.headers['webhook-id']))], [deliveryId]);
      assert.equal(receiver.received.at(-1)!.headers['webhook-id'], deliveryId);
    } finally {
      await second.close();
    }
  });
});
