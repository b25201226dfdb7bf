import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { call } from '../helpers/http.ts';
import { BACKENDS, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');

type Era = 'modern' | 'legacy';

/**
 * `mcp-inspector --cli <url> …` as a developer runs it (`npx @modelcontextprotocol/inspector --cli`),
 * with the credential in --header and the protocol era chosen: `modern` is revision 2026-07-28
 * (server/discover, _meta on every request), `legacy` the 2025 initialize handshake.
 */
async function inspector(url: string, bearer: string | undefined, era: Era, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const header = bearer === undefined ? [] : ['--header', `Authorization: Bearer ${bearer}`];
  try {
    const { stdout, stderr } = await run(join(BIN, 'mcp-inspector'), ['--cli', url, '--transport', 'http', '--protocol-era', era, ...header, ...args], {
      // The Inspector starts `node` from PATH: the project's Node 24 comes first. Its catalog of
      // servers goes to a file of the test's own, not the developer's home.
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, MCP_CATALOG_PATH: catalog },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

let catalog = '';

// One backend is enough here: this checks that a third-party client works against the endpoint.
const backend = BACKENDS[0]!;

describe(`the MCP Inspector 2.x (CLI mode, both protocol eras) against the running service on ${backend.name}`, () => {
  let service: TestService;
  let key: string;
  let url: string;
  before(async () => {
    service = await startTestService(backend.url);
    key = await service.mintKey('Inspector Org', ['restaurant']);
    url = `${service.url}/api/mcp`;
    catalog = join(mkdtempSync(join(tmpdir(), 'inspector-')), 'mcp.json');
  });
  after(async () => {
    rmSync(dirname(catalog), { recursive: true, force: true });
    await service.close();
  });

  for (const era of ['modern', 'legacy'] as const) {
    test(`${era}: lists the six tools`, async () => {
      const listed = await inspector(url, key, era, ['--method', 'tools/list']);
      assert.equal(listed.code, 0, listed.stderr);
      const { tools } = JSON.parse(listed.stdout);
      assert.deepEqual(
        tools.map((t: { name: string }) => t.name),
        ['book_restaurant', 'book_hotel', 'book_flight', 'book_activity', 'get_job_status', 'get_job_audit'],
      );
    });

    test(`${era}: books a restaurant with --tool-arg values, then polls the job`, async () => {
      const bookingArgs = [
        '--method', 'tools/call', '--tool-name', 'book_restaurant',
        '--tool-arg', 'restaurant_name=Noma', 'city=Copenhagen', `date=${daysFromNow(9)}`, 'time=20:00', 'covers=3',
        `profile=${JSON.stringify(PROFILE)}`,
      ];
      let jobId: string;
      if (era === 'legacy') {
        const booked = await inspector(url, key, era, bookingArgs);
        assert.equal(booked.code, 0, booked.stderr);
        const result = JSON.parse(booked.stdout);
        assert.equal(result.isError, undefined, booked.stdout);
        assert.equal(result.structuredContent.status, 'queued');
        jobId = result.structuredContent.jobId;
      } else {
        // The Inspector declares the Tasks extension: the booking is a task, which it polls with
        // tasks/get until it ends. No worker runs here, so the job waits; the API client cancels it
        // through REST, and the Inspector sees the task end.
        const before = new Set((await service.services.db.selectFrom('jobs').select('id').execute()).map((r) => r.id));
        const booked = inspector(url, key, era, bookingArgs);
        let created: string | undefined;
        await until('the Inspector created the job', async () => {
          created = (await service.services.db.selectFrom('jobs').select('id').execute()).map((r) => r.id).find((id) => !before.has(id));
          return created !== undefined;
        }, 30_000, 100);
        jobId = created!;
        const cancelled = await call(service.url, 'POST', `/api/v1/execution-jobs/${jobId}/cancel`, { key });
        assert.equal(cancelled.status, 200, cancelled.text);
        const ended = await booked;
        assert.match(ended.stderr, /Tool call \\?"book_restaurant\\?" was cancelled/, `the Inspector reports the task cancelled: ${ended.stdout}${ended.stderr}`);
      }

      const polled = await inspector(url, key, era, ['--method', 'tools/call', '--tool-name', 'get_job_status', '--tool-arg', `jobId=${jobId}`]);
      assert.equal(polled.code, 0, polled.stderr);
      assert.equal(JSON.parse(polled.stdout).structuredContent.status, era === 'legacy' ? 'queued' : 'error');

      const audit = await inspector(url, key, era, ['--method', 'tools/call', '--tool-name', 'get_job_audit', '--tool-arg', `jobId=${jobId}`, 'limit=10']);
      assert.equal(audit.code, 0, audit.stderr);
      assert.equal(JSON.parse(audit.stdout).structuredContent.events[0].type, 'job_created');
    });

    test(`${era}: shows invalid arguments as the tool's error result`, async () => {
      // Inspector 2.x exits 5 (tool_is_error) on a result with isError, and prints the result.
      const invalid = await inspector(url, key, era, ['--method', 'tools/call', '--tool-name', 'book_restaurant', '--tool-arg', 'covers=0']);
      assert.equal(invalid.code, 5, invalid.stderr);
      assert.match(invalid.stderr, /tool_is_error/);
      assert.match(invalid.stdout, /invalid_arguments/);
    });

    test(`${era}: without a credential it is refused`, async () => {
      // --stored-auth-only: the CLI would otherwise start its interactive OAuth flow on the 401.
      const refused = await inspector(url, undefined, era, ['--stored-auth-only', '--method', 'tools/list']);
      assert.notEqual(refused.code, 0);
      assert.doesNotMatch(refused.stdout, /book_restaurant/);
      assert.match(refused.stdout + refused.stderr, /401|auth/i);
    });
  }
});
