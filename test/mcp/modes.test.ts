import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mintApiKey } from '../../src/auth/api-keys.ts';
import { createJob } from '../../src/jobs/service.ts';
import { parseExecutionJobRequest } from '../../src/jobs/schemas.ts';
import { DomainError } from '../../src/jobs/types.ts';
import { addProvider } from '../../src/providers/store.ts';
import { bookingArguments, mcpClient } from '../helpers/mcp.ts';
import { requests, startTestService, type TestService } from '../helpers/service.ts';

// Test and live modes on /api/mcp: a booking tool called with an API key takes the key's mode; a
// job a person creates through an OAuth client takes the service's mode for people (live in
// production, test otherwise). Refusals create nothing. (REST: test/executor/registry.test.ts.)

describe('modes on /api/mcp', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService('pglite:memory:');
    await addProvider(service.services.db, { id: 'live-stays', name: 'Live Stays', scenario: 'hotel', startUrl: 'http://127.0.0.1:9/', driver: 'staysearch', mode: 'live' }, { allowPrivate: true });
  });
  after(() => service.close());
  const jobCount = async () => Number((await service.services.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  test('a live API key: a scenario without a live provider is an invalid_arguments tool error naming it; one with a live provider is queued in live mode', async () => {
    const { key } = await mintApiKey(service.services.db, { organizationName: 'Acme Travel', allowedJobTypes: ['restaurant', 'hotel'], live: true, dailyLimit: null });
    const mcp = await mcpClient(service.url, key);
    try {
      const before = await jobCount();
      const refused = await mcp.client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant! });
      assert.equal(refused.isError, true);
      const body = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text);
      assert.equal(body.error, 'invalid_arguments');
      assert.deepEqual(body.issues, [{ path: 'request.scenario', message: 'no live provider books restaurant jobs: jobs in live mode book only on live providers' }]);
      assert.equal(await jobCount(), before, 'nothing was created');

      const queued = await mcp.client.callTool({ name: 'book_hotel', arguments: bookingArguments().book_hotel! });
      assert.equal(queued.isError, undefined, JSON.stringify(queued.content));
      const jobId = (queued.structuredContent as { jobId: string }).jobId;
      const row = await service.services.db.selectFrom('jobs').select('mode').where('id', '=', jobId).executeTakeFirstOrThrow();
      assert.equal(row.mode, 'live');
    } finally {
      await mcp.close();
    }
  });

  test("a person's job takes the service's mode for people: test here (not production), and a live service refuses what only test providers serve", async () => {
    assert.equal(service.services.jobs.userJobMode, 'test');
    const person = { kind: 'user' as const, userId: 1, clientId: null };
    const parsed = parseExecutionJobRequest(requests.restaurant());
    assert.ok(parsed.ok);
    const { job } = await createJob(service.services.jobs, person, parsed.value);
    const row = await service.services.db.selectFrom('jobs').select('mode').where('id', '=', job.jobId).executeTakeFirstOrThrow();
    assert.equal(row.mode, 'test');
    const before = await jobCount();
    await assert.rejects(createJob({ ...service.services.jobs, userJobMode: 'live' }, person, parsed.value), (error: unknown) => error instanceof DomainError && error.code === 'invalid_request' && JSON.stringify(error.details).includes('no live provider books restaurant jobs'));
    assert.equal(await jobCount(), before);
  });
});
