import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FLIGHT_PROFILE, PROFILE, restaurantRequest, startTestService, type TestService } from '../helpers/service.ts';
import { call } from '../helpers/http.ts';
import { API_KEY_PATTERN } from '../../src/auth/api-keys.ts';
import { dropSchemas } from '../../src/db/index.ts';
import { dumpEveryTable } from '../helpers/db-dump.ts';
import { assertRefusedOnceRevokedElsewhere } from '../helpers/revocation.ts';

// The operator CLI as an operator runs it: bin/concierge in a child process, against an embedded
// (PGlite) data directory — alone, and while a running service owns that directory (the CLI then
// goes through the service's socket and never opens the directory itself) — and against PostgreSQL.
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

const COMMANDS = ['serve', 'worker', 'migrate', 'keys create', 'keys list', 'keys revoke', 'clients create', 'clients list', 'clients rotate', 'clients delete', 'profiles create', 'webhooks add', 'webhooks list', 'webhooks remove'];
const GROUPS = ['keys', 'clients', 'profiles', 'webhooks'];

describe('concierge CLI: usage and configuration errors', () => {
  test('--help on the program and on every command', async () => {
    const overview = await concierge(['--help']);
    assert.equal(overview.code, 0);
    for (const name of COMMANDS) assert.ok(overview.stdout.includes(name), `overview lists ${name}`);
    assert.equal((await concierge([])).code, 0);
    const runs = await Promise.all(COMMANDS.map((name) => concierge([...name.split(' '), '--help'])));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 0, `${COMMANDS[i]} --help: ${run.stderr}`);
      assert.ok(run.stdout.includes(`usage: concierge ${COMMANDS[i]}`), `${COMMANDS[i]} --help prints its usage:\n${run.stdout}`);
    }
    assert.match(runs[0]!.stdout, /PORT/, 'serve --help lists the environment');
  });

  test('--help on a command group lists its commands, and only those', async () => {
    const runs = await Promise.all(GROUPS.flatMap((group) => [concierge([group, '--help']), concierge([group])]));
    for (const [i, run] of runs.entries()) {
      const group = GROUPS[Math.floor(i / 2)]!;
      assert.equal(run.code, 0, `${group}: ${run.stderr}`);
      assert.ok(run.stdout.startsWith(`usage: concierge ${group} <command>`), run.stdout);
      for (const name of COMMANDS) assert.equal(run.stdout.includes(`  ${name} `), name.startsWith(`${group} `), `${group} --help and ${name}:\n${run.stdout}`);
    }
  });

  test('an unknown command or flag exits 2 with the usage', async () => {
    const unknown = await concierge(['launch']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command: launch/);
    const sub = await concierge(['keys', 'mint']);
    assert.equal(sub.code, 2);
    assert.match(sub.stderr, /unknown command: keys mint\n\nusage: concierge keys <command>/);
    const flag = await concierge(['keys', 'list', '--colour']);
    assert.equal(flag.code, 2);
    assert.match(flag.stderr, /usage: concierge keys list/);
  });

  test('a bad environment variable stops the process with a message naming it, exit 2', async () => {
    const cases: Array<[Record<string, string>, RegExp]> = [
      [{ PORT: 'abc' }, /PORT/],
      [{ PORT: '70000' }, /PORT/],
      [{ DATABASE_URL: 'mysql://db/x' }, /DATABASE_URL: must be postgres:\/\/… or pglite:<dir>/],
      [{ JOB_READ_ISOLATION: 'everyone' }, /JOB_READ_ISOLATION/],
      [{ LOG_LEVEL: 'loud' }, /LOG_LEVEL/],
    ];
    const runs = await Promise.all(cases.map(([env]) => concierge(['serve'], env)));
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 2, JSON.stringify(cases[i]![0]));
      assert.match(run.stderr, /^invalid configuration:/);
      assert.match(run.stderr, cases[i]![1]);
      assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
    }
  });

  test('missing or bad options are usage errors, exit 2', async () => {
    const runs = await Promise.all([
      concierge(['keys', 'create', '--types', 'restaurant']),
      concierge(['keys', 'create', '--org', 'Acme']),
      concierge(['keys', 'create', '--org', 'Acme', '--types', 'restaurant,boat']),
      concierge(['keys', 'create', '--org', 'Acme', '--types', 'hotel', '--daily-limit', 'lots']),
      concierge(['keys', 'revoke', 'abc']),
      concierge(['profiles', 'create', '--org', 'Acme']),
    ]);
    const messages = [/--org is required/, /--types must list some of restaurant,hotel,flight,activity/, /unknown: boat/, /--daily-limit must be a positive whole number/, /numeric key id/, /--json-file is required/];
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, messages[i]!);
    }
  });
});

// Where the operator's commands are tried: a PGlite data directory, and PostgreSQL (in a schema of
// the test's own, dropped after) when TEST_DATABASE_URL is set.
const DATABASES = [
  { name: 'a PGlite data directory', pglite: true, meeting: 'through the socket of the service that owns the directory' },
  ...(process.env.TEST_DATABASE_URL ? [{ name: 'PostgreSQL', pglite: false, meeting: 'beside a running service' }] : []),
];

for (const database of DATABASES) describe(`concierge CLI against ${database.name}`, () => {
  let dir: string;
  let env: Record<string, string>;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'concierge-cli-'));
    env = database.pglite
      ? { DATABASE_URL: `pglite:${join(dir, 'data')}` }
      : { DATABASE_URL: process.env.TEST_DATABASE_URL!, DATABASE_SCHEMA: `t_cli_${randomBytes(6).toString('hex')}` };
  });
  after(async () => {
    rmSync(dir, { recursive: true, force: true });
    if (env.DATABASE_SCHEMA) await dropSchemas(env.DATABASE_URL!, env.DATABASE_SCHEMA);
  });

  test(`alone (no service running), keys create and keys list${database.pglite ? ': the CLI opens the directory itself and releases it' : ''}`, async () => {
    const json = await concierge(['keys', 'create', '--org', 'Globex', '--types', 'flight', '--live', '--daily-limit', '500', '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    const minted = JSON.parse(json.stdout);
    assert.match(minted.key, /^svk_live_[A-Za-z0-9_-]{43}$/, '256 random bits, base64url');
    assert.equal(minted.organizationName, 'Globex');
    assert.deepEqual(minted.allowedJobTypes, ['flight']);
    assert.equal(minted.dailyLimit, 500);
    assert.equal(minted.mode, 'live');
    const list = await concierge(['keys', 'list', '--json'], env);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(JSON.parse(list.stdout).map((k: any) => k.id), [minted.id]);
    assert.ok(!list.stdout.includes(minted.key), 'list never shows a key');
    if (database.pglite) assert.equal(existsSync(join(dir, 'data', 'concierge.pid')), false, 'the CLI released the data directory');
  });

  describe(`while a service runs on the same database, ${database.meeting}`, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(env.DATABASE_URL!, env);
    });
    after(() => service.close());

    test('keys create prints the key once; keys list never shows one; keys revoke', async () => {
      if (database.pglite) assert.ok(existsSync(join(dir, 'data', 'concierge.pid')), 'the service holds the lock');
      const text = await concierge(['keys', 'create', '--org', 'Acme Travel', '--types', 'restaurant,hotel'], env);
      assert.equal(text.code, 0, text.stderr);
      const printed = /\b(svk_test_[A-Za-z0-9_-]+)\b/.exec(text.stdout)?.[1];
      assert.ok(printed && API_KEY_PATTERN.test(printed), text.stdout);
      assert.match(text.stdout, /shown once/);
      const id = Number(/API key (\d+)/.exec(text.stdout)?.[1]);

      const list = await concierge(['keys', 'list', '--json'], env);
      assert.equal(list.code, 0);
      const keys = JSON.parse(list.stdout);
      assert.ok(keys.length >= 2);
      assert.ok(!list.stdout.includes(printed), 'list never shows a key');
      for (const k of keys) assert.equal('key' in k || 'keyHash' in k || 'key_hash' in k, false);
      const listText = await concierge(['keys', 'list'], env);
      assert.match(listText.stdout, /Acme Travel/);
      assert.ok(!listText.stdout.includes(printed));

      const revoke = await concierge(['keys', 'revoke', String(id)], env);
      assert.equal(revoke.code, 0, revoke.stderr);
      assert.match(revoke.stdout, new RegExp(`API key ${id} revoked`));
      const again = await concierge(['keys', 'revoke', String(id)], env);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /no active API key/);
    });

    test('a minted key is stored as its SHA-256 only: the plaintext is nowhere in the database', async () => {
      const minted = await concierge(['keys', 'create', '--org', 'Hashed Org', '--types', 'hotel', '--json'], env);
      assert.equal(minted.code, 0, minted.stderr);
      const { key, id } = JSON.parse(minted.stdout) as { key: string; id: number };
      const row = await service.services.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(row.key_hash, createHash('sha256').update(key, 'utf8').digest('hex'));
      // Every row of every table, the queue's included. The listed prefix shows the first four
      // characters of the secret (svk_test_ABCD), as keys list does; no longer run of it is stored.
      const { text } = await dumpEveryTable(service);
      assert.ok(text.includes(row.key_hash), 'the dump does hold the hash (the search looks in the right place)');
      const secret = key.slice('svk_test_'.length);
      for (let at = 0; at + 8 <= secret.length; at++) {
        assert.ok(!text.includes(secret.slice(at, at + 8)), `the dump holds part of the key: ${secret.slice(at, at + 8)}`);
      }
      assert.ok(!text.includes(key));
      assert.equal(row.prefix, key.slice(0, 13));
    });

    test('profiles create validates the file like the API does', async () => {
      const file = join(dir, 'profile.json');
      writeFileSync(file, JSON.stringify(FLIGHT_PROFILE));
      const profile = await concierge(['profiles', 'create', '--org', 'Acme Travel', '--json-file', file, '--json'], env);
      assert.equal(profile.code, 0, profile.stderr);
      assert.ok(Number.isInteger(JSON.parse(profile.stdout).profileId));
      writeFileSync(file, JSON.stringify({ first_name: 'Ada', email: 'nope' }));
      const invalid = await concierge(['profiles', 'create', '--org', 'Acme Travel', '--json-file', file], env);
      assert.equal(invalid.code, 2);
      assert.match(invalid.stderr, /last_name: last_name is required/);
      assert.match(invalid.stderr, /email: email must be a valid email address/);
      writeFileSync(file, '{ not json');
      assert.match((await concierge(['profiles', 'create', '--org', 'Acme Travel', '--json-file', file], env)).stderr, /cannot read a JSON profile/);
      const missing = await concierge(['profiles', 'create', '--org', 'Acme Travel', '--json-file', join(dir, 'nope.json')], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /cannot read a JSON profile/);
    });

    test('what the CLI mints, stores and revokes takes effect in the service at once', async () => {
      const minted = await concierge(['keys', 'create', '--org', 'Initech', '--types', 'restaurant,flight', '--json'], env);
      assert.equal(minted.code, 0, minted.stderr);
      const { key, id } = JSON.parse(minted.stdout);

      const file = join(dir, 'initech.json');
      writeFileSync(file, JSON.stringify({ ...PROFILE, first_name: 'Peter' }));
      const stored = await concierge(['profiles', 'create', '--org', 'Initech', '--json-file', file, '--json'], env);
      assert.equal(stored.code, 0, stored.stderr);
      const { profileId } = JSON.parse(stored.stdout);

      const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: { request: restaurantRequest().request, profileId } });
      assert.equal(created.status, 202, created.text);
      assert.equal((await call(service.url, 'GET', `/api/v1/profiles/${profileId}`, { key })).body.profile.first_name, 'Peter');

      // The key is verified (and cached); the CLI revokes it, through the socket on PGlite. On
      // PostgreSQL the service hears of it by a notification that may arrive after the CLI exits.
      await assertRefusedOnceRevokedElsewhere(service, created.body._links.self, key, async () => {
        const revoked = await concierge(['keys', 'revoke', String(id)], env);
        assert.equal(revoked.code, 0, revoked.stderr);
      });

      const list = await concierge(['keys', 'list', '--json'], env);
      const listed = JSON.parse(list.stdout).find((k: any) => k.id === id);
      assert.ok(listed.lastUsedAt !== null, 'last use is recorded');
      assert.ok(listed.revokedAt !== null);
    });

    test('migrate reports the database up to date', async () => {
      const run = await concierge(['migrate'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /already up to date/);
    });
  });
});
