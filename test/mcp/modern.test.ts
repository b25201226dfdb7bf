import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestService, type TestService } from '../helpers/service.ts';
import { bookingArguments, INITIALIZE, mcpClient, modernRequest, MODERN_REVISION, rpc, textOf } from '../helpers/mcp.ts';

// Protocol revision 2026-07-28 beside the 2025 ones on the one endpoint. The storage is not what
// these test (the tools are the same core calls as under 2025-06-18), so PGlite only.

const MODERN = MODERN_REVISION;
const TOOL_NAMES = ['book_restaurant', 'book_hotel', 'book_flight', 'book_activity', 'get_job_status', 'get_job_audit'];

/** The SDK v2 client, pinned to the current revision (no initialize, no fallback). */
async function modernClient(baseUrl: string, bearer: string) {
  const client = new Client({ name: 'concierge-test-v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/api/mcp`), { requestInit: { headers: { Authorization: `Bearer ${bearer}` } } });
  await client.connect(transport);
  return client;
}


describe('POST /api/mcp under revision 2026-07-28 (SDK v2 client) beside the 2025 revisions', () => {
  let service: TestService;
  let key: string;
  let client: Client;
  before(async () => {
    service = await startTestService('pglite:memory:');
    key = await service.mintKey('Acme Travel');
    client = await modernClient(service.url, key);
  });
  after(async () => {
    await client?.close();
    await service.close();
  });

  test('server/discover: the current revision, tools, the server and its instructions, with cache hints', async () => {
    assert.equal(client.getProtocolEra(), 'modern');
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(client.getServerVersion()?.name, 'concierge');
    assert.match(client.getInstructions() ?? '', /never pays/);
    assert.deepEqual(client.getServerCapabilities()?.tools, { listChanged: false });
    const { body, status } = await rpc(service.url, modernRequest('server/discover').body, { bearer: key, headers: modernRequest('server/discover').headers });
    assert.equal(status, 200);
    assert.equal(body.result.resultType, 'complete');
    assert.deepEqual(body.result.supportedVersions, [MODERN]);
    assert.equal(body.result.cacheScope, 'public');
    assert.equal(body.result.ttlMs, 600_000);
    assert.equal(body.result._meta['io.modelcontextprotocol/serverInfo'].name, 'concierge');
  });

  test('tools/list carries resultType and cache hints, and the same six tools as 2025-06-18', async () => {
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
    const legacy = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { bearer: key, headers: { 'mcp-protocol-version': '2025-06-18' } });
    const { body } = await rpc(service.url, modernRequest('tools/list').body, { bearer: key, headers: modernRequest('tools/list').headers });
    assert.equal(body.result.resultType, 'complete');
    assert.equal(body.result.ttlMs, 600_000);
    assert.equal(body.result.cacheScope, 'public');
    assert.deepEqual(body.result.tools, legacy.body.result.tools);
    assert.equal(legacy.body.result.resultType, undefined, 'the 2025 revisions are answered as before');
    const read = tools.filter((t) => t.name.startsWith('get_'));
    for (const tool of read) assert.deepEqual(tool.annotations, { readOnlyHint: true, destructiveHint: false, openWorldHint: false });
  });

  test('every tool: a booking of each scenario, its status and its audit', async () => {
    for (const [name, args] of Object.entries(bookingArguments())) {
      const created = await client.callTool({ name, arguments: args });
      assert.equal(created.isError, undefined, name);
      const job = created.structuredContent as { jobId: string; status: string };
      assert.equal(job.status, 'queued');
      const status = await client.callTool({ name: 'get_job_status', arguments: { jobId: job.jobId } });
      assert.equal((status.structuredContent as { jobId: string }).jobId, job.jobId);
      const audit = await client.callTool({ name: 'get_job_audit', arguments: { jobId: job.jobId } });
      assert.equal((audit.structuredContent as { events: Array<{ type: string }> }).events[0]!.type, 'job_created');
    }
    const invalid = await client.callTool({ name: 'book_restaurant', arguments: { city: 'Lisbon' } });
    assert.equal(invalid.isError, true);
    assert.equal(textOf(invalid).error, 'invalid_arguments');
  });

  test('the credential and scopes are checked as under 2025-06-18', async () => {
    const { body, headers } = modernRequest('tools/list');
    const anonymous = await rpc(service.url, body, { headers });
    assert.equal(anonymous.status, 401);
    assert.match(anonymous.headers.get('www-authenticate') ?? '', /resource_metadata=/);
    const otherKey = await service.mintKey('Globex', ['hotel']);
    const call = modernRequest('tools/call', { name: 'book_restaurant', arguments: bookingArguments().book_restaurant });
    const refused = await rpc(service.url, call.body, { bearer: otherKey, headers: call.headers });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, 'scenario_not_allowed');
  });

  test("another owner's job reads like a missing one", async () => {
    const created = await client.callTool({ name: 'book_restaurant', arguments: bookingArguments().book_restaurant });
    const { jobId } = created.structuredContent as { jobId: string };
    const other = await modernClient(service.url, await service.mintKey('Globex'));
    try {
      const status = await other.callTool({ name: 'get_job_status', arguments: { jobId } });
      assert.equal(status.isError, true);
      assert.equal(textOf(status).error, 'job_not_found');
    } finally {
      await other.close();
    }
  });

  test('an unsupported revision in _meta is -32022 with the supported list, on 400', async () => {
    const { body, headers } = modernRequest('tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' });
    const reply = await rpc(service.url, body, { bearer: key, headers });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error.code, -32022);
    assert.deepEqual(reply.body.error.data.supported, [MODERN]);
    assert.equal(reply.body.error.data.requested, '2099-01-01');
  });

  test('a malformed _meta, a header that disagrees with it, or the revision header without _meta are refused', async () => {
    const malformed = modernRequest('tools/list', {}, { 'io.modelcontextprotocol/clientCapabilities': 'all of them' });
    const bad = await rpc(service.url, malformed.body, { bearer: key, headers: malformed.headers });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, -32602);
    const mismatch = modernRequest('tools/list');
    const disagree = await rpc(service.url, mismatch.body, { bearer: key, headers: { ...mismatch.headers, 'mcp-method': 'tools/call' } });
    assert.equal(disagree.status, 400);
    assert.equal(disagree.body.error.code, -32020);
    const bare = await rpc(service.url, { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }, { bearer: key, headers: { 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list' } });
    assert.equal(bare.status, 400);
    assert.equal(bare.body.error.code, -32602);
  });

  test('methods the current revision removed (ping, logging/setLevel) are -32601; an unknown tool is -32602', async () => {
    for (const method of ['ping', 'logging/setLevel']) {
      const { body, headers } = modernRequest(method);
      const reply = await rpc(service.url, body, { bearer: key, headers });
      assert.equal(reply.body.error.code, -32601, method);
    }
    const unknown = modernRequest('tools/call', { name: 'book_spaceship', arguments: {} });
    const reply = await rpc(service.url, unknown.body, { bearer: key, headers: unknown.headers });
    assert.equal(reply.body.error.code, -32602);
    assert.match(reply.body.error.message, /book_restaurant/);
  });

  test('server/discover under a 2025 revision is -32022 naming the revision that has it', async () => {
    const reply = await rpc(service.url, { jsonrpc: '2.0', id: 4, method: 'server/discover', params: {} }, { bearer: key, headers: { 'mcp-protocol-version': '2025-06-18' } });
    assert.equal(reply.status, 400);
    assert.equal(reply.body.id, 4);
    assert.equal(reply.body.error.code, -32022);
    assert.equal(reply.body.error.data.requested, '2025-06-18');
    assert.equal(reply.body.error.data.supported[0], MODERN);
    assert.ok(!reply.body.error.data.supported.includes('2025-03-26'));
  });

  test('initialize still selects the 2025 revisions, exactly as before; 2025-03-26 is no longer negotiated', async () => {
    for (const version of ['2025-06-18', '2025-11-25']) {
      const reply = await rpc(service.url, INITIALIZE(version), { bearer: key });
      assert.equal(reply.body.result.protocolVersion, version);
      assert.equal(reply.body.result.resultType, undefined);
    }
    const old = await rpc(service.url, INITIALIZE('2025-03-26'), { bearer: key });
    assert.notEqual(old.body.result.protocolVersion, '2025-03-26');
    const header = await rpc(service.url, { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, { bearer: key, headers: { 'mcp-protocol-version': '2025-03-26' } });
    assert.equal(header.status, 400);
    assert.equal(header.body.error, 'unsupported_protocol_version');
    // The v1 SDK client keeps its revision.
    const v1 = await mcpClient(service.url, key);
    try {
      assert.equal(v1.transport.protocolVersion, '2025-11-25');
      assert.equal((await v1.client.listTools()).tools.length, 6);
    } finally {
      await v1.close();
    }
  });
});
