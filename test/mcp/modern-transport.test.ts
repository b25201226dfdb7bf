import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, modernRequest, textOf, toolContextFor, within } from '../helpers/mcp.ts';
import { createModernEndpoint, type ModernEndpoint } from '../../src/mcp/modern.ts';
import type { ToolContext } from '../../src/mcp/tools/types.ts';

// Revision 2026-07-28 is answered by one SDK v2 Server per process (src/mcp/modern-transport.ts),
// as the 2025 revisions are (test/mcp/transport.test.ts). These hand it requests in the same tick,
// as concurrent HTTP requests would: clients' ids collide, callers differ, one client leaves.
for (const backend of BACKENDS.slice(0, 1)) {
  describe(`the process's 2026-07-28 server shared by concurrent requests (${backend.name})`, () => {
    let service: TestService;
    let endpoint: ModernEndpoint;
    let acme: ToolContext;
    let globex: ToolContext;
    const never = new AbortController().signal;

    before(async () => {
      service = await startTestService(backend.url);
      acme = await toolContextFor(service, 'Acme Travel');
      globex = await toolContextFor(service, 'Globex');
      endpoint = await createModernEndpoint();
    });
    after(async () => {
      await endpoint.close();
      await service.close();
    });

    /** One request as src/mcp/index.ts hands it over: classified by the SDK, then served. */
    const serve = (on: ModernEndpoint, id: string | number, method: string, params: Record<string, unknown>, context: ToolContext, signal = never, headers: Record<string, string> = {}) => {
      const { body, headers: standard } = modernRequest(method, params);
      const request = { headers: { 'content-type': 'application/json', ...standard, ...headers }, hostname: '127.0.0.1' };
      const claim = on.classify(request.headers, { ...body, id });
      assert.ok(claim, 'a request of the current revision');
      return on.serve(claim, request, { ...body, id }, context, signal);
    };
    const answerOf = (reply: { status: number; body: Buffer }) => JSON.parse(reply.body.toString());

    test('the same id from different clients in flight together: each answer goes back to its own request, run as its own caller', async () => {
      const book = { name: 'book_restaurant', arguments: bookingArguments().book_restaurant };
      const [acmeJob, globexJob] = (await within(Promise.all([serve(endpoint, 1, 'tools/call', book, acme), serve(endpoint, 1, 'tools/call', book, globex)]))).map(
        (reply) => textOf(answerOf(reply).result).jobId as string,
      );
      assert.notEqual(acmeJob, globexJob);

      const asked: Array<[ToolContext, string, string | number, boolean]> = [
        [acme, acmeJob!, 1, true],
        [globex, globexJob!, 1, true],
        [acme, globexJob!, 1, false],
        [globex, acmeJob!, '1', false],
        [globex, globexJob!, 'x', true],
      ];
      const replies = await within(Promise.all(asked.map(([context, jobId, id]) => serve(endpoint, id, 'tools/call', { name: 'get_job_status', arguments: { jobId } }, context))));
      replies.forEach((reply, i) => {
        const [, jobId, id, visible] = asked[i]!;
        assert.equal(reply.status, 200);
        const answer = answerOf(reply);
        assert.equal(answer.id, id);
        if (visible) assert.equal(textOf(answer.result).jobId, jobId);
        else assert.equal(textOf(answer.result).error, 'job_not_found');
      });
    });

    test('an error raised before any handler ran keeps the HTTP status the SDK gives it', async () => {
      const reply = await within(serve(endpoint, 3, 'ping', {}, acme));
      assert.equal(reply.status, 404);
      assert.deepEqual(answerOf(reply), { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
    });

    test('a request the shared server does not take (a Base64 Mcp-Name) is answered by the SDK handler, the same way', async () => {
      const params = { name: 'get_job_status', arguments: { jobId: '00000000-0000-4000-8000-000000000000' } };
      const plain = await within(serve(endpoint, 4, 'tools/call', params, acme));
      const encoded = await within(serve(endpoint, 4, 'tools/call', params, acme, never, { 'mcp-name': `=?base64?${Buffer.from('get_job_status').toString('base64')}?=` }));
      assert.equal(encoded.status, plain.status);
      assert.deepEqual(encoded.headers, plain.headers);
      assert.equal(encoded.body.toString(), plain.body.toString());
    });

    test('a request whose client left is cancelled; the others in flight and later ones are answered', async () => {
      const leaving = new AbortController();
      const status = { name: 'get_job_status', arguments: { jobId: '00000000-0000-4000-8000-000000000000' } };
      const left = serve(endpoint, 5, 'tools/call', status, acme, leaving.signal);
      const stays = serve(endpoint, 5, 'tools/call', status, globex);
      leaving.abort();
      await assert.rejects(left, /closed/);
      assert.equal(answerOf(await within(stays)).id, 5);
      assert.equal(answerOf(await within(serve(endpoint, 6, 'tools/list', {}, acme))).id, 6);
    });

    test('closing the endpoint answers the requests still waiting as the SDK does (499, no body)', async () => {
      const closing = await createModernEndpoint();
      const waiting = serve(closing, 'w', 'tools/call', { name: 'get_job_status', arguments: { jobId: '00000000-0000-4000-8000-000000000000' } }, acme);
      await closing.close();
      const reply = await within(waiting);
      assert.equal(reply.status, 499);
      assert.equal(reply.body.length, 0);
      await assert.rejects(serve(closing, 'after', 'tools/list', {}, acme), /closed/);
    });
  });
}
