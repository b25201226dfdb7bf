import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { BACKENDS, daysFromNow, PROFILE, startTestService, type TestService } from '../helpers/service.ts';

const run = promisify(execFile);
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = join(ROOT, 'node_modules', '.bin');
const PRELOAD = join(ROOT, 'test', 'helpers', 'bearer-fetch.ts');

/** `mcp-inspector --cli <url> …` as a developer runs it (`npx @modelcontextprotocol/inspector --cli`). */
async function inspector(url: string, bearer: string | undefined, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(join(BIN, 'mcp-inspector'), ['--cli', url, '--transport', 'http', ...args], {
      // The Inspector starts `node` from PATH: the project's Node 24 comes first.
      env: { ...process.env, PATH: `${BIN}:${process.env.PATH}`, NODE_OPTIONS: `--import=${PRELOAD}`, MCP_TEST_BEARER: bearer ?? '' },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === 'number' ? failed.code : 1, stdout: failed.stdout ?? '', stderr: failed.stderr ?? '' };
  }
}

// One backend is enough here: this checks that a third-party client works against the endpoint.
const backend = BACKENDS[0]!;

describe(`the MCP Inspector (CLI mode) against the running service on ${backend.name}`, () => {
  let service: TestService;
  let key: string;
  let url: string;
  before(async () => {
    service = await startTestService(backend.url);
    key = await service.mintKey('Inspector Org', ['restaurant']);
    url = `${service.url}/api/mcp`;
  });
  after(() => service.close());

  test('lists the six tools', async () => {
    const listed = await inspector(url, key, ['--method', 'tools/list']);
    assert.equal(listed.code, 0, listed.stderr);
    const { tools } = JSON.parse(listed.stdout);
    assert.deepEqual(
      tools.map((t: { name: string }) => t.name),
      ['book_restaurant', 'book_hotel', 'book_flight', 'book_activity', 'get_job_status', 'get_job_audit'],
    );
  });

  test('books a restaurant with --tool-arg values, then polls the job', async () => {
    const booked = await inspector(url, key, [
      '--method', 'tools/call', '--tool-name', 'book_restaurant',
      '--tool-arg', 'restaurant_name=Noma', 'city=Copenhagen', `date=${daysFromNow(9)}`, 'time=20:00', 'covers=3',
      `profile=${JSON.stringify(PROFILE)}`,
    ]);
    assert.equal(booked.code, 0, booked.stderr);
    const result = JSON.parse(booked.stdout);
    assert.equal(result.isError, undefined, booked.stdout);
    assert.equal(result.structuredContent.status, 'queued');

    const polled = await inspector(url, key, ['--method', 'tools/call', '--tool-name', 'get_job_status', '--tool-arg', `jobId=${result.structuredContent.jobId}`]);
    assert.equal(polled.code, 0, polled.stderr);
    assert.equal(JSON.parse(polled.stdout).structuredContent.status, 'queued');

    const audit = await inspector(url, key, ['--method', 'tools/call', '--tool-name', 'get_job_audit', '--tool-arg', `jobId=${result.structuredContent.jobId}`, 'limit=10']);
    assert.equal(audit.code, 0, audit.stderr);
    assert.equal(JSON.parse(audit.stdout).structuredContent.events[0].type, 'job_created');
  });

  test('shows invalid arguments as the tool\'s error result', async () => {
    const invalid = await inspector(url, key, ['--method', 'tools/call', '--tool-name', 'book_restaurant', '--tool-arg', 'covers=0']);
    assert.equal(invalid.code, 0, invalid.stderr);
    const result = JSON.parse(invalid.stdout);
    assert.equal(result.isError, true);
    assert.equal(JSON.parse(result.content[0].text).error, 'invalid_arguments');
  });

  test('without a credential it is refused', async () => {
    const refused = await inspector(url, undefined, ['--method', 'tools/list']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stdout + refused.stderr, /401|missing_authorization|Unauthorized/i);
  });
});
