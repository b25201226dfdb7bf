import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MAX_ENDPOINTS } from '../../src/webhooks/endpoints.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';

// Limits on how many of something an owner may have at once, held under races: a burst of
// creations sent together, through the real API, creates exactly the limit, never more. (A key's
// daily limit of jobs, the other count limit, has its race test in api-limits.test.ts.)

const BURST = 30;

for (const backend of BACKENDS) {
  describe(`count limits under concurrent requests on ${backend.name}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(backend.url);
    });
    after(() => service?.close());

    const endpointsOf = async (organizationName: string) =>
      (await service.services.db.selectFrom('webhook_endpoints').select('id').where('organization_name', '=', organizationName).where('deleted_at', 'is', null).execute()).length;
    const register = (key: string, i: number) => call(service.url, 'POST', '/api/v1/webhook-endpoints', { key, body: { url: `http://127.0.0.1:9/hook-${i}` } });

    test(`${BURST} webhook endpoints registered at once: exactly ${MAX_ENDPOINTS} are created, the rest are 409 webhook_endpoint_limit`, async () => {
      const key = await service.mintKey('Burst Travel');
      const replies = await Promise.all(Array.from({ length: BURST }, (_, i) => register(key, i)));
      const created = replies.filter((r) => r.status === 201);
      assert.equal(created.length, MAX_ENDPOINTS, replies.map((r) => r.status).join(' '));
      for (const refused of replies.filter((r) => r.status !== 201)) {
        assertApiError(refused, 409, 'webhook_endpoint_limit');
        assert.match(refused.body.error.message, new RegExp(`at most ${MAX_ENDPOINTS} webhook endpoints`));
      }
      assert.equal(await endpointsOf('Burst Travel'), MAX_ENDPOINTS);
    });

    test('a removed endpoint frees its place for exactly one of the next burst; other organisations are not held up', async () => {
      const key = await service.mintKey('Burst Travel');
      const listed = await call(service.url, 'GET', '/api/v1/webhook-endpoints', { key });
      assert.equal((await call(service.url, 'DELETE', `/api/v1/webhook-endpoints/${listed.body.endpoints[0].id}`, { key })).status, 204);
      const otherKey = await service.mintKey('Calm Travel');
      const replies = await Promise.all([
        ...Array.from({ length: 10 }, (_, i) => register(key, 100 + i)),
        ...Array.from({ length: 3 }, (_, i) => register(otherKey, i)),
      ]);
      assert.deepEqual(replies.slice(0, 10).map((r) => r.status).sort(), [201, ...Array(9).fill(409)]);
      assert.deepEqual(replies.slice(10).map((r) => r.status), [201, 201, 201]);
      assert.equal(await endpointsOf('Burst Travel'), MAX_ENDPOINTS);
      assert.equal(await endpointsOf('Calm Travel'), 3);
    });
  });
}
