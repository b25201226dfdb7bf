import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { BACKENDS, startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, textOf, toolContextFor, within } from '../helpers/mcp.ts';
import { RequestTransport } from '../../src/mcp/transport.ts';
import { createMcpServer } from '../../src/mcp/server.ts';
import type { ToolContext } from '../../src/mcp/tools/types.ts';

// One MCP server per process answers every HTTP request's message (src/mcp/transport.ts). These
// hand it messages in the same tick, as concurrent HTTP requests would, so they are certainly in
// flight together: clients' ids collide, callers differ, and one client leaves mid-request.
for (const backend of BACKENDS.slice(0, 1)) {
  describe(`the process's MCP server shared by concurrent requests (${backend.name})`, () => {
    let service: TestService;
    let transport: RequestTransport;
    let server: McpServer;
    let acme: ToolContext;
    let globex: ToolContext;
    const never = new AbortController().signal;

    before(async () => {
      service = await startTestService(backend.url);
      acme = await toolContextFor(service, 'Acme Travel');
      globex = await toolContextFor(service, 'Globex');
      transport = new RequestTransport();
      server = createMcpServer(transport);
      await server.connect(transport);
    });
    after(async () => {
      await server.close();
      await service.close();
    });

    const call = (id: string | number, name: string, args: Record<string, unknown>): JSONRPCMessage => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const resultOf = (message: JSONRPCMessage | null) => textOf((message as { result: Record<string, unknown> }).result);

    test('the same id from different clients in flight together: each answer goes back to its own request, run as its own caller', async () => {
      const [acmeJob, globexJob] = (await within(Promise.all([
        transport.dispatch(call(1, 'book_restaurant', bookingArguments().book_restaurant!), acme, never),
        transport.dispatch(call(1, 'book_restaurant', bookingArguments().book_restaurant!), globex, never),
      ]))).map((reply) => resultOf(reply).jobId as string);
      assert.notEqual(acmeJob, globexJob);

      const asked: Array<[ToolContext, string, string | number, boolean]> = [
        [acme, acmeJob!, 1, true],
        [globex, globexJob!, 1, true],
        [acme, globexJob!, 1, false],
        [globex, acmeJob!, '1', false],
        [globex, globexJob!, 'x', true],
      ];
      const replies = await within(Promise.all(asked.map(([context, jobId, id]) => transport.dispatch(call(id, 'get_job_status', { jobId }), context, never))));
      replies.forEach((reply, i) => {
        const [, jobId, id, visible] = asked[i]!;
        assert.equal((reply as { id: unknown }).id, id);
        const result = resultOf(reply);
        if (visible) assert.equal(result.jobId, jobId);
        else assert.equal(result.error, 'job_not_found');
      });
    });

    test('a notification or a response is answered with nothing', async () => {
      assert.equal(await transport.dispatch({ jsonrpc: '2.0', method: 'notifications/initialized' }, acme, never), null);
      assert.equal(await transport.dispatch({ jsonrpc: '2.0', id: 1, result: {} }, acme, never), null);
    });

    test("a client's notifications/cancelled never reaches the shared server: naming any id, it cancels no one's request", async () => {
      // The server numbers requests 1, 2, 3… in this process; these name every id it has used and
      // the ones it is about to use, while another client's calls are in flight.
      const inFlight = [1, 2, 3].map((id) => transport.dispatch(call(id, 'get_job_status', { jobId: '00000000-0000-4000-8000-000000000000' }), globex, never));
      for (let requestId = 1; requestId <= 200; requestId++) {
        const cancel: JSONRPCMessage = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'timed out' } };
        assert.equal(await transport.dispatch(cancel, acme, never), null);
      }
      const replies = await within(Promise.all(inFlight));
      replies.forEach((reply, i) => {
        assert.equal((reply as { id: unknown }).id, i + 1);
        assert.equal(resultOf(reply).error, 'job_not_found');
      });
    });

    test('a request the server cannot handle (it reports an error instead of answering) is answered -32603, and the next one is served', async () => {
      // The endpoint refuses such a message before it gets here (test/mcp/http.test.ts); this is the backstop.
      const malformed = { jsonrpc: '2.0', id: 9, method: 'ping', params: null } as unknown as JSONRPCMessage;
      const reply = (await within(transport.dispatch(malformed, acme, never))) as { id: unknown; error: { code: number } };
      assert.equal(reply.id, 9);
      assert.equal(reply.error.code, -32603);
      assert.deepEqual(await within(transport.dispatch({ jsonrpc: '2.0', id: 10, method: 'ping' }, acme, never)), { jsonrpc: '2.0', id: 10, result: {} });
    });

    test('closing the server answers the requests still waiting', async () => {
      const own = new RequestTransport();
      const closing = createMcpServer(own);
      await closing.connect(own);
      const waiting = own.dispatch({ jsonrpc: '2.0', id: 'w', method: 'tools/list' }, acme, never);
      await closing.close();
      const reply = (await within(waiting)) as { id: unknown; error: { code: number } };
      assert.equal(reply.id, 'w');
      assert.equal(reply.error.code, -32000);
    });

    test('a request whose client left is cancelled; the others in flight and later ones are answered', async () => {
      const leaving = new AbortController();
      const left = transport.dispatch({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, acme, leaving.signal);
      const stays = transport.dispatch({ jsonrpc: '2.0', id: 5, method: 'tools/list' }, globex, never);
      leaving.abort();
      await assert.rejects(left, /closed/);
      assert.equal(((await stays) as { id: unknown }).id, 5);
      const later = await transport.dispatch({ jsonrpc: '2.0', id: 6, method: 'ping' }, acme, never);
      assert.deepEqual(later, { jsonrpc: '2.0', id: 6, result: {} });
    });
  });
}
