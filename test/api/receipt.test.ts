import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { handoffToken, handoffTokenHash } from '../../src/jobs/handoff-tokens.ts';
import { RECEIPT_GRACE_MS } from '../../src/executor/hold-timings.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { createJob } from '../executor/helpers.ts';

// The receipt: once a held booking has ended, the job keeps its handoffUrl for as long as the link
// shows the outcome (30 minutes after the end), and the link answers; after that both are gone.

for (const backend of BACKENDS) {
  describe(`the receipt link on a finished job, on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey();
    });
    after(() => service?.close());

    /** A job whose held booking was paid `endedAgoMs` ago. */
    async function paidAgo(endedAgoMs: number): Promise<{ jobId: string; url: string }> {
      const jobId = await createJob(service, key, restaurantRequest());
      const endedAt = new Date(Date.now() - endedAgoMs);
      const holdExpiresAt = new Date(endedAt.getTime() + 600_000);
      const token = handoffToken(service.services.secretKey, jobId, holdExpiresAt.toISOString());
      await service.services.db.updateTable('jobs').set({
        status: 'completed', provider_id: 'tablebook', confirmation_code: 'TB-RECEIPT', hold_expires_at: holdExpiresAt,
        handoff_token_hash: handoffTokenHash(token), completed_at: endedAt, updated_at: endedAt,
      }).where('id', '=', jobId).execute();
      return { jobId, url: `${service.url}/handoff/${token}` };
    }

    test('within 30 minutes of the end the job shows the link, and the link shows the confirmation', async () => {
      const { jobId, url } = await paidAgo(RECEIPT_GRACE_MS - 60_000);
      const job = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
      assert.equal(job.body.status, 'completed');
      assert.equal(job.body.handoffUrl, url);
      const page = await fetch(url);
      assert.equal(page.status, 200);
      assert.match(await page.text(), /TB-RECEIPT/);
    });

    test('after 30 minutes the job shows no link, and the link is gone', async () => {
      const { jobId, url } = await paidAgo(RECEIPT_GRACE_MS + 60_000);
      const job = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
      assert.equal(job.body.handoffUrl, null);
      assert.equal((await fetch(url)).status, 410);
    });

    test('a job that never held a booking has no link', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      assert.equal((await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key })).body.handoffUrl, null);
    });
  });
}
