import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';

// A new PGlite data directory starts from the cached result of one initdb (src/db/pglite-initdb.ts):
// the first empty directory fills the cache, later ones are copies of it, a cache anyone else could
// have written is not used, and a directory made from the cache is a working database.

const work = mkdtempSync(join(tmpdir(), 'concierge-initdb-'));
const savedCacheHome = process.env.XDG_CACHE_HOME;
after(() => {
  if (savedCacheHome === undefined) delete process.env.XDG_CACHE_HOME;
  else process.env.XDG_CACHE_HOME = savedCacheHome;
  rmSync(work, { recursive: true, force: true });
});

let dirs = 0;
/** Opens a new, empty data directory, migrates it, and returns its cluster's system identifier. */
async function newDirectory(): Promise<{ identifier: string; jobs: number }> {
  const dir = join(work, `data-${++dirs}`);
  const database = await openDatabase({ DATABASE_URL: `pglite:${dir}`, DATABASE_SCHEMA: 'public' });
  try {
    await migrateToLatest(database.db, database.schema);
    const { rows } = await sql<{ id: string }>`select system_identifier::text as id from pg_control_system()`.execute(database.db);
    const jobs = await database.db.selectFrom('jobs').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return { identifier: rows[0]!.id, jobs: Number(jobs.n) };
  } finally {
    await database.close();
  }
}

describe('a new PGlite data directory, from the cached initdb', () => {
  test('the first one fills a cache only its user can read or write; the next is a copy of it, migrated and working', async () => {
    process.env.XDG_CACHE_HOME = join(work, 'cache');
    const first = await newDirectory();
    const cache = join(work, 'cache', 'concierge');
    const [file, ...others] = readdirSync(cache);
    assert.match(file ?? '', /^pglite-initdb-\d+\.\d+\.\d+\.tar$/);
    assert.deepEqual(others, [], 'one file, no partial writes left behind');
    assert.equal(statSync(cache).mode & 0o777, 0o700);
    assert.equal(statSync(join(cache, file!)).mode & 0o777, 0o600);

    const second = await newDirectory();
    assert.equal(second.identifier, first.identifier, 'the second directory is the cached cluster');
    assert.equal(second.jobs, 0, 'and the service\'s tables are there, empty');
  });

  test('a cache another user could have written is not used, nor rewritten: the directory runs its own initdb and works', async () => {
    // The cache of the test before.
    const cache = join(work, 'cache', 'concierge');
    const [file] = readdirSync(cache);
    const path = join(cache, file!);
    const cached = (await newDirectory()).identifier;
    chmodSync(path, 0o666);
    const planted = await newDirectory();
    assert.notEqual(planted.identifier, cached, 'a world-writable cache file was loaded as the database');
    assert.equal(planted.jobs, 0);
    chmodSync(path, 0o600);
    chmodSync(cache, 0o777);
    const before = statSync(path).mtimeMs;
    const shared = await newDirectory();
    assert.notEqual(shared.identifier, cached, 'a cache in a world-writable directory was loaded as the database');
    assert.equal(shared.jobs, 0);
    assert.equal(statSync(path).mtimeMs, before, 'nothing was written into a directory others can write to');
  });
});
