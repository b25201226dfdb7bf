import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { startTestService, type TestService } from '../helpers/service.ts';

// The official MCP conformance suite (@modelcontextprotocol/conformance, its CLI as a client would
// run it) against /api/mcp. Its server scenarios connect without a credential, so they reach the
// endpoint through a loopback relay that adds an API key and changes nothing else (the Host header
// included: the DNS-rebinding scenario sends its own). The scenarios that apply to a server that
// offers tools only: the others need its own test tools, prompts, resources, logging or sampling.
// The suite's release has no 2026-07-28 scenarios yet; that revision is tested with the SDK v2
// client and the Inspector (modern.test.ts, tasks.test.ts, inspector.test.ts).

const run = promisify(execFile);
const CLI = new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url).pathname;
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** A relay to `to.target` that adds `Authorization: Bearer <to.key>` to every request. */
async function authRelay(to: { target?: URL; key?: string }): Promise<http.Server> {
  const relay = http.createServer((request, response) => {
    const { target, key } = to as { target: URL; key: string };
    const upstream = http.request(
      { host: target.hostname, port: target.port, method: request.method, path: request.url, headers: { ...request.headers, authorization: `Bearer ${key}` } },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', () => response.destroy());
    request.pipe(upstream);
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  return relay;
}

async function checksIn(dir: string): Promise<Check[]> {
  const checks: Check[] = [];
  for (const entry of await readdir(dir, { recursive: true })) {
    if (entry.endsWith('checks.json')) checks.push(...(JSON.parse(await readFile(join(dir, entry), 'utf8')) as Check[]));
  }
  return checks;
}

describe('the official MCP conformance suite, every scenario that applies to a tools-only server', () => {
  let service: TestService;
  let relay: http.Server;
  let output: string;
  before(async () => {
    // The relay stands where a reverse proxy would: the browser origin the suite's clients send is
    // the relay's, so the operator allows it (MCP_ALLOWED_ORIGINS), as behind any proxy.
    const to: { target?: URL; key?: string } = {};
    relay = await authRelay(to);
    service = await startTestService('pglite:memory:', { MCP_ALLOWED_ORIGINS: `http://localhost:${(relay.address() as AddressInfo).port}` });
    to.target = new URL(service.url);
    to.key = await service.mintKey('Conformance');
    output = await mkdtemp(join(tmpdir(), 'conformance-'));
  });
  after(async () => {
    relay?.close();
    await service?.close();
    if (output) await rm(output, { recursive: true, force: true });
  });

  for (const scenario of SCENARIOS) {
    test(scenario, async () => {
      const url = `http://localhost:${(relay.address() as AddressInfo).port}/api/mcp`;
      const dir = join(output, scenario);
      const result = await run(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', dir], { timeout: 60_000 }).catch((error: { stdout?: string; stderr?: string; code?: number }) => error);
      const checks = await checksIn(dir);
      assert.ok(checks.length > 0, `the suite reported checks: ${result.stdout ?? ''}${result.stderr ?? ''}`);
      const failed = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
      assert.deepEqual(failed, [], `${scenario}: ${JSON.stringify(failed)}`);
      assert.ok(checks.some((c) => c.status === 'SUCCESS'), `${scenario} passed at least one check`);
    });
  }
});
