// bench/mcp: how fast is a tools/call through the whole /api/mcp stack?
//
// Three servers on loopback, measured with the same load (autocannon, same connections):
//   1. MCP  — POST /api/mcp tools/call get_job_status of 100 jobs, round robin, on the real service (API key auth, database
//             read, the process's one McpServer behind src/mcp/transport.ts, JSON reply);
//   2. REST — GET /api/v1/execution-jobs/{id} of the same jobs on the same service;
//   3. SDK  — the MCP SDK's own minimal stateless server (node:http, McpServer.registerTool, one
//             trivial tool, no auth, no database), answering tools/call in JSON;
//   4. MCP 2026-07-28 — the same tools/call get_job_status under the current revision (the _meta
//             envelope, no session: the SDK v2 handler behind src/mcp/modern.ts);
//   5. tasks/get — the same jobs read as MCP tasks (Tasks extension declared), 2026-07-28.
// The three are measured in turn, round after round, so that each ratio compares neighbours in
// time (a shared machine's load drifts); each figure is the median over the rounds.
// It prints requests per second for each, the ratios and the load average. Targets: MCP at least
// 0.5 of REST; the current revision at least as fast as 2025-06-18; tasks/get at least 0.8 of REST.
//
// Run: node --disable-warning=ExperimentalWarning bench/mcp.ts
// Env: BENCH_DATABASE_URL (default pglite:memory:; postgres://… uses a schema of its own, dropped
//      at the end), BENCH_CONNECTIONS (10), BENCH_SECONDS per measurement (5), BENCH_ROUNDS (3).
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { loadavg } from 'node:os';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { dropSchemas } from '../src/db/index.ts';
import { z } from 'zod';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startService } from '../src/server.ts';
import { mintApiKey } from '../src/auth/api-keys.ts';
import { createJob } from '../src/jobs/service.ts';
import { parseExecutionJobRequest } from '../src/jobs/schemas.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARMUP_SECONDS = 2;
const JOBS = 100;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Target {
  name: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Varies the n-th request (a different job each time); the fixed url/body otherwise. */
  requestAt?: (n: number) => { path?: string; body?: string; headers?: Record<string, string> };
  /** A reply that is 200 but says the call failed would make the figure meaningless. */
  check(body: string): boolean;
}

async function measure(target: Target, seconds: number): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  let next = 0;
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
    duration: seconds,
    ...(target.requestAt ? { requests: [{ setupRequest: (request) => ({ ...request, ...target.requestAt!(next++) }) }] } : {}),
  });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.timeouts + result.non2xx };
}

/** The SDK's minimal stateless server, as its own example writes it (without Express). */
async function startSdkMinimal(): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const mcp = new McpServer({ name: 'sdk-minimal', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echoes its input', inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    await mcp.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL ?? 'pglite:memory:';
  // On PostgreSQL the bench works in a schema of its own, dropped at the end.
  const schema = databaseUrl.startsWith('postgres') ? `bench_${randomBytes(6).toString('hex')}` : 'public';
  const config = loadConfig({}, { NODE_ENV: 'test', DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, PORT: '0', WORKERS: '0', API_KEY_RATE_LIMIT: '1000000', OAUTH_CLIENT_RATE_LIMIT: '1000000' });
  const running = await startService(config, createLogger('silent'));
  const base = running.url.replace('[::1]', '127.0.0.1');
  const sdk = await startSdkMinimal();
  try {
    const { key } = await mintApiKey(running.services.db, { organizationName: 'Bench', allowedJobTypes: ['restaurant'], live: false, dailyLimit: null });
    const date = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
    const parsed = parseExecutionJobRequest({
      request: { scenario: 'restaurant', params: { restaurant_name: 'Noma', city: 'Copenhagen', date, time: '19:30', covers: 2 } },
      profile: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' },
    });
    if (!parsed.ok) throw new Error('bench request is invalid');
    // Clients poll many jobs: MCP and REST both read JOBS jobs round robin, so no read is answered
    // for another that happened to ask for the same row.
    const jobIds: string[] = [];
    for (let i = 0; i < JOBS; i++) {
      const { job } = await createJob(running.services.jobs, { kind: 'organization', organizationName: 'Bench', apiKeyId: 1 }, parsed.value);
      jobIds.push(job.jobId);
    }
    const statusCall = (jobId: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId } } });
    const restPath = (jobId: string) => `/api/v1/execution-jobs/${jobId}`;
    const MODERN = '2026-07-28';
    const envelope = (capabilities: Record<string, unknown>) => ({
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': capabilities,
    });
    const modernStatusCall = (jobId: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_job_status', arguments: { jobId }, _meta: envelope({}) } });
    const taskGet = (jobId: string) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId: jobId, _meta: envelope({ extensions: { 'io.modelcontextprotocol/tasks': {} } }) } });
    const modernHeaders = (method: string, name: string) => ({
      'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${key}`,
      'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': name,
    });

    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' };
    const targets: Target[] = [
      {
        name: 'MCP tools/call get_job_status',
        url: `${base}/api/mcp`,
        method: 'POST',
        headers: { ...mcpHeaders, authorization: `Bearer ${key}` },
        body: statusCall(jobIds[0]!),
        requestAt: (n) => ({ body: statusCall(jobIds[n % JOBS]!) }),
        check: (body) => JSON.parse(body).result?.structuredContent?.status === 'queued',
      },
      {
        name: 'REST GET execution-job',
        url: `${base}${restPath(jobIds[0]!)}`,
        requestAt: (n) => ({ path: restPath(jobIds[n % JOBS]!) }),
        method: 'GET',
        headers: { authorization: `Bearer ${key}` },
        check: (body) => JSON.parse(body).status === 'pending',
      },
      {
        name: 'SDK minimal stateless tools/call',
        url: sdk.url,
        method: 'POST',
        headers: mcpHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } }),
        check: (body) => JSON.parse(body).result?.content?.[0]?.text === 'hi',
      },
      {
        name: 'MCP 2026-07-28 tools/call status',
        url: `${base}/api/mcp`,
        method: 'POST',
        headers: modernHeaders('tools/call', 'get_job_status'),
        body: modernStatusCall(jobIds[0]!),
        requestAt: (n) => ({ body: modernStatusCall(jobIds[n % JOBS]!) }),
        check: (body) => JSON.parse(body).result?.structuredContent?.status === 'queued',
      },
      {
        name: 'MCP 2026-07-28 tasks/get',
        url: `${base}/api/mcp`,
        method: 'POST',
        headers: modernHeaders('tasks/get', jobIds[0]!),
        body: taskGet(jobIds[0]!),
        requestAt: (n) => ({ body: taskGet(jobIds[n % JOBS]!), headers: modernHeaders('tasks/get', jobIds[n % JOBS]!) }),
        check: (body) => JSON.parse(body).result?.status === 'working',
      },
    ];

    for (const target of targets) {
      const response = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
      const text = await response.text();
      if (response.status !== 200 || !target.check(text)) throw new Error(`${target.name}: unexpected reply ${response.status} ${text.slice(0, 300)}`);
    }

    console.log(
      `bench/mcp: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SECONDS} s per server (after ${WARMUP_SECONDS} s warm-up), database ${running.services.database.backend}, node ${process.version}`,
    );
    for (const target of targets) await measure(target, WARMUP_SECONDS);
    const runs = targets.map(() => [] as Array<{ rps: number; p50: number; p99: number; errors: number }>);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, target] of targets.entries()) runs[i]!.push(await measure(target, SECONDS));
    }
    for (const [i, target] of targets.entries()) {
      const r = runs[i]!;
      const rps = median(r.map((m) => m.rps));
      const errors = r.reduce((sum, m) => sum + m.errors, 0);
      console.log(
        `  ${target.name.padEnd(34)} ${rps.toFixed(0).padStart(7)} req/s   p50 ${String(median(r.map((m) => m.p50))).padStart(3)} ms   p99 ${String(median(r.map((m) => m.p99))).padStart(3)} ms   errors ${errors}   rounds ${r.map((m) => m.rps.toFixed(0)).join(' / ')}`,
      );
    }
    const ratio = (a: number, b: number) => median(runs[a]!.map((m, round) => m.rps / runs[b]![round]!.rps));
    console.log(`  MCP / REST         ${ratio(0, 1).toFixed(2)}   (median of per-round ratios; target >= 0.50)`);
    console.log(`  MCP / SDK minimal  ${ratio(0, 2).toFixed(2)}`);
    console.log(`  2026-07-28 / 2025-06-18 tools/call  ${ratio(3, 0).toFixed(2)}   (target >= 1.00)`);
    console.log(`  tasks/get / REST GET                ${ratio(4, 1).toFixed(2)}   (target >= 0.80)`);
    console.log(`  load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    sdk.server.close();
    await running.close();
    if (schema !== 'public') {
      await dropSchemas(databaseUrl, schema);
    }
  }
}

await main();
