import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { recordDecision } from '../../src/jobs/transition.ts';
import { jobAuditSchema } from '../../src/api/v1/response-schemas.ts';
import { assertApiError } from '../helpers/api-assert.ts';
import { call } from '../helpers/http.ts';
import { BACKENDS, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { createJob } from '../executor/helpers.ts';

// GET /api/v1/execution-jobs/{id}/audit?after=<cursor>: pages end with nextCursor null, and a client
// paging while the job's events are still being written neither misses one nor sees one twice.

for (const backend of BACKENDS) {
  describe(`audit cursors on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url);
      key = await service.mintKey();
    });
    after(() => service?.close());

    const page = (jobId: string, query: string) => call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}/audit${query}`, { key });
    const append = (jobId: string, n: number) => recordDecision(service.services.db, jobId, { type: 'step_attempt', message: `decision ${n}` });

    /** Every event, page by page, from the start: the step indexes in the order read. */
    async function readAll(jobId: string, limit: number): Promise<number[]> {
      const seen: number[] = [];
      let cursor: string | null = null;
      do {
        const reply = await page(jobId, `?limit=${limit}${cursor ? `&after=${encodeURIComponent(cursor)}` : ''}`);
        assert.equal(reply.status, 200, reply.text);
        jobAuditSchema.parse(reply.body);
        assert.ok(reply.body.count <= limit);
        seen.push(...reply.body.events.map((e: { stepIndex: number }) => e.stepIndex));
        cursor = reply.body.nextCursor;
      } while (cursor !== null);
      return seen;
    }

    test('pages of `limit` events, nextCursor null on the last; the old shape stays', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      for (let i = 1; i <= 6; i++) await append(jobId, i);
      const first = await page(jobId, '?limit=3');
      assert.deepEqual(first.body.events.map((e: { stepIndex: number }) => e.stepIndex), [0, 1, 2]);
      assert.equal(first.body.count, 3);
      assert.equal(typeof first.body.nextCursor, 'string');
      const second = await page(jobId, `?limit=3&after=${first.body.nextCursor}`);
      assert.deepEqual(second.body.events.map((e: { stepIndex: number }) => e.stepIndex), [3, 4, 5]);
      assert.equal(typeof second.body.nextCursor, 'string', 'one more event is there');
      const last = await page(jobId, `?limit=3&after=${second.body.nextCursor}`);
      assert.deepEqual(last.body.events.map((e: { stepIndex: number }) => e.stepIndex), [6]);
      assert.equal(last.body.nextCursor, null);
      // Without a cursor and within the limit, as before: everything, and nextCursor null.
      const whole = await page(jobId, '');
      assert.equal(whole.body.count, 7);
      assert.equal(whole.body.nextCursor, null);
      // limit clamps as the contract says: 0 reads as 1, a huge one as 2000.
      assert.equal((await page(jobId, '?limit=0')).body.count, 1);
      assert.equal((await page(jobId, '?limit=999999')).body.count, 7);
    });

    test('events appended while a client pages are neither lost nor repeated', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      const total = 80;
      let appended = 0;
      const writer = (async () => {
        for (let i = 1; i <= total; i++) {
          await append(jobId, i);
          appended = i;
        }
      })();
      const readers: number[][] = [];
      // Several clients page through while the writer appends; each pass reads to the end as it then stood.
      do readers.push(await readAll(jobId, 2 + (readers.length % 4)));
      while (appended < total);
      await writer;
      readers.push(await readAll(jobId, 7));
      for (const seen of readers) {
        assert.deepEqual(seen, Array.from({ length: seen.length }, (_, i) => i), 'in order, each event once, none skipped');
      }
      assert.equal(readers.at(-1)!.length, total + 1);
    });

    test('a cursor that is not one of ours is 400 invalid_cursor', async () => {
      const jobId = await createJob(service, key, restaurantRequest());
      for (const bad of ['nope', '', Buffer.from('audit:abc').toString('base64url'), Buffer.from('other:12').toString('base64url'), 'a'.repeat(200)]) {
        assertApiError(await page(jobId, `?after=${encodeURIComponent(bad)}`), 400, 'invalid_cursor');
      }
      assertApiError(await page(jobId, '?after=x&after=y'), 400, 'invalid_cursor');
    });
  });
}
