import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropSchemas } from '../../src/db/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

// `concierge providers add | list | remove` as an operator runs them: bin/concierge in a child
// process while the service runs, on a PGlite data directory (through the service's socket) and on
// PostgreSQL. Every refusal exits 2 with a message naming what is wrong, and writes nothing.
const BIN = fileURLToPath(new URL('../../bin/concierge', import.meta.url));

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function concierge(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => (stdout += c));
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const add = (flags: Record<string, string>, extra: string[] = []) => ['providers', 'add', ...Object.entries(flags).flatMap(([k, v]) => [`--${k}`, v]), ...extra];
const GOOD = { id: 'acme-tables', name: 'Acme Tables', scenario: 'restaurant', url: 'http://127.0.0.1:9/book' };

/** What production needs to start at all (the CLI reads the same configuration). */
const PRODUCTION = { NODE_ENV: 'production', BASE_URL: 'https://concierge.example', OIDC_ISSUER: 'https://idp.example', OIDC_CLIENT_ID: 'concierge', OIDC_CLIENT_SECRET: 'secret', SECRET_KEY: 'k'.repeat(40) };

describe('concierge providers: usage', () => {
  test('--help on the group and on each command', async () => {
    const group = await concierge(['providers', '--help']);
    assert.equal(group.code, 0);
    for (const name of ['providers add', 'providers list', 'providers remove']) assert.ok(group.stdout.includes(`  ${name} `), group.stdout);
    const [help, list, remove] = await Promise.all(['add', 'list', 'remove'].map((name) => concierge(['providers', name, '--help'])));
    for (const [name, run] of [['add', help], ['list', list], ['remove', remove]] as const) {
      assert.equal(run!.code, 0, run!.stderr);
      assert.ok(run!.stdout.includes(`usage: concierge providers ${name}`), run!.stdout);
    }
    for (const part of ['--priority', 'lower goes first', 'PROVIDER_ALLOW_PRIVATE_ADDRESSES', '2 to 40 lower-case', 'tablebook']) assert.ok(help!.stdout.includes(part), `add --help mentions ${part}`);
  });
});

const DATABASES = [
  { name: 'a PGlite data directory (through the running service)', pglite: true },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'PostgreSQL (beside the running service)', pglite: false }] : []),
];

for (const database of DATABASES) describe(`concierge providers against ${database.name}`, () => {
  let dir: string;
  let env: Record<string, string>;
  let service: TestService;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'concierge-providers-'));
    env = database.pglite
      ? { DATABASE_URL: `pglite:${join(dir, 'data')}` }
      : { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: `t_prov_${randomBytes(6).toString('hex')}` };
    service = await startTestService(env.DATABASE_URL!, env);
  });
  after(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
    if (env.DATABASE_SCHEMA) await dropSchemas(env.DATABASE_URL!, env.DATABASE_SCHEMA);
  });

  const registeredIds = async () => (await service.services.db.selectFrom('providers').select('id').orderBy('id').execute()).map((r) => r.id);

  test('a refused provider exits 2 with a message naming the problem, and writes nothing (every check: test/providers/store.test.ts)', async () => {
    const cases: Array<[string[], RegExp]> = [
      [add({ ...GOOD, id: 'x' }, ['--id=-acme']), /--id "-acme" is not a provider id: 2 to 40 lower-case/],
      [add({ ...GOOD, scenario: 'boat' }), /--scenario must be one of restaurant, hotel, flight, activity \(got "boat"\)/],
      [add({ id: 'acme', name: 'Acme', scenario: 'restaurant' }), /--url is required/],
    ];
    const runs = await Promise.all(cases.map(([args]) => concierge(args, env)));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 2, `${cases[i]![0].join(' ')}: ${run.stderr}`);
      assert.match(run.stderr, cases[i]![1]);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
    assert.deepEqual(await registeredIds(), []);
  });

  test('add, list (built-in and registered, in chain order), a duplicate refused, remove', async () => {
    const text = await concierge(add(GOOD), env);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /provider acme-tables registered \(Acme Tables, restaurant, live, priority 100, driver generic\) at http:\/\/127\.0\.0\.1:9\/book/);

    const json = await concierge(add({ id: 'early-tables', name: 'Early Tables', scenario: 'restaurant', url: 'http://tablebook.localhost:9/', driver: 'tablebook', priority: '5', mode: 'test' }, ['--json']), env);
    assert.equal(json.code, 0, json.stderr);
    const early = JSON.parse(json.stdout);
    assert.deepEqual({ ...early, createdAt: typeof early.createdAt }, { id: 'early-tables', name: 'Early Tables', scenario: 'restaurant', driver: 'tablebook', startUrl: 'http://tablebook.localhost:9/', priority: 5, mode: 'test', builtIn: false, createdAt: 'string' });

    const duplicate = await concierge(add({ ...GOOD, name: 'Another Acme' }), env);
    assert.equal(duplicate.code, 2);
    assert.match(duplicate.stderr, /a provider acme-tables is already registered/);
    const row = await service.services.db.selectFrom('providers').select('name').where('id', '=', 'acme-tables').executeTakeFirstOrThrow();
    assert.equal(row.name, 'Acme Tables', 'the duplicate changed nothing');

    const list = await concierge(['providers', 'list', '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    const restaurants = JSON.parse(list.stdout).filter((p: any) => p.scenario === 'restaurant').map((p: any) => [p.id, p.priority, p.mode, p.builtIn]);
    assert.deepEqual(restaurants, [['early-tables', 5, 'test', false], ['tablebook', 100, 'test', true], ['acme-tables', 100, 'live', false], ['dinenow', 200, 'test', true]]);

    const removed = await concierge(['providers', 'remove', 'acme-tables'], env);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /provider acme-tables removed/);
    const again = await concierge(['providers', 'remove', 'acme-tables'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /no registered provider acme-tables/);
    const builtIn = await concierge(['providers', 'remove', 'tablebook'], env);
    assert.equal(builtIn.code, 2);
    assert.match(builtIn.stderr, /tablebook is a built-in provider: it cannot be removed/);
    assert.deepEqual(await registeredIds(), ['early-tables']);
    assert.equal((await concierge(['providers', 'remove', 'early-tables'], env)).code, 0);
  });

  test('in production a start URL on a loopback, private or link-local address is refused unless PROVIDER_ALLOW_PRIVATE_ADDRESSES=true', async () => {
    const production = { ...env, ...PRODUCTION };
    // Each kind of address is in test/net/address-policy.test.ts; here, that the CLI applies the policy in production.
    const urls = ['http://tablebook.localhost:4100/', 'http://169.254.169.254/latest/'];
    const runs = await Promise.all(urls.map((url, i) => concierge(add({ ...GOOD, id: `inner-${i}`, url }), production)));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 2, `${urls[i]}: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, /--url .*(not a public address|this machine \(loopback\)).*set PROVIDER_ALLOW_PRIVATE_ADDRESSES=true/);
    }
    assert.deepEqual(await registeredIds(), []);
    const allowed = await concierge(add({ ...GOOD, id: 'inner-ok', url: 'http://10.1.2.3/' }), { ...production, PROVIDER_ALLOW_PRIVATE_ADDRESSES: 'true' });
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.deepEqual(await registeredIds(), ['inner-ok']);
    // The built-ins are the sandbox's sites, which production does not run: they do not exist there.
    const listed = await concierge(['providers', 'list', '--json'], { ...production, PROVIDER_ALLOW_PRIVATE_ADDRESSES: 'true' });
    assert.equal(listed.code, 0, listed.stderr);
    assert.deepEqual(JSON.parse(listed.stdout).map((p: any) => [p.id, p.builtIn]), [['inner-ok', false]]);
    assert.equal((await concierge(['providers', 'remove', 'inner-ok'], env)).code, 0);
  });
});
