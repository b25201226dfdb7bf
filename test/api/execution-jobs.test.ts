import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { assertApiError, assertChangesNothing } from '../helpers/api-assert.ts';

for (const backend of BACKENDS) {
  describe(`POST/GET /api/v1/execution-jobs on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey('Acme Travel', ['restaurant', 'hotel']);
    });
    after(() => service.close());

    test('a valid request is accepted as a pending job with links and a job_created event', async () => {
      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: restaurantRequest() });
      assert.equal(created.status, 202);
      assert.match(created.body.jobId, /^[0-9a-f-]{36}$/);
      assert.equal(created.body.status, 'pending');
      assert.equal(created.body.scenario, 'restaurant');
      assert.equal(created.body.organizationName, 'Acme Travel');
      assert.deepEqual(created.body._links, { self: `/api/v1/execution-jobs/${created.body.jobId}`, audit: `/api/v1/execution-jobs/${created.body.jobId}/audit` });

      const read = await call(service.url, 'GET', created.body._links.self, { key });
      assert.equal(read.status, 200);
      assert.equal(read.body.status, 'pending');
      assert.equal(read.body.handoffUrl, null);
      assert.equal(read.body.attemptCount, 0);
      assert.equal(read.body.usedFallback, false);
      assert.deepEqual(read.body.decisionLog.map((e: { type: string }) => e.type), ['job_created']);

      const audit = await call(service.url, 'GET', created.body._links.audit, { key });
      assert.equal(audit.status, 200);
      assert.equal(audit.body.count, 1);
      assert.equal(audit.body.events[0].type, 'job_created');
      assert.equal(audit.body.events[0].stepIndex, 0);
    });

    test('a scenario outside the key\'s allowed job types is 403 scenario_not_allowed and creates nothing', async () => {
      const reply = await assertChangesNothing(service, () =>
        call(service.url, 'POST', '/api/v1/execution-jobs', {
          key,
          body: { request: { scenario: 'activity', params: { event_name: 'Hamilton', city: 'London', event_date: '2030-01-01', num_tickets: 2 } }, profile: restaurantRequest().profile },
        }),
      );
      assertApiError(reply, 403, 'scenario_not_allowed');
    });

    test('the same idempotency key from 50 concurrent requests yields one job', async () => {
      const body = { ...restaurantRequest({ restaurant_name: 'Geranium' }), clientMetadata: { idempotencyKey: `k-${backend.name}` } };
      const replies = await Promise.all(Array.from({ length: 50 }, () => call(service.url, 'POST', '/api/v1/execution-jobs', { key, body })));
      assert.deepEqual([...new Set(replies.map((r) => r.status))], [202]);
      assert.equal(new Set(replies.map((r) => r.body.jobId)).size, 1);
      const reused = await assertChangesNothing(service, () =>
        call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: { ...body, request: { ...body.request, params: { ...body.request.params, covers: 4 } } } }),
      );
      assertApiError(reused, 409, 'idempotency_key_reused');
    });
  });
}
