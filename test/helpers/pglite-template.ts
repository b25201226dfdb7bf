import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/index.ts';
import { migrateToLatest } from '../../src/db/migrate.ts';
import { startQueue } from '../../src/jobs/queue.ts';
import { BytesBlob } from '../../src/db/bytes-blob.ts';

// A fresh in-memory PGlite spends seconds in initdb and schema creation. Tests start many
// services, so the migrated database (with pg-boss's schema and queue) is built once, dumped, and
// every later service loads the dump. The key covers everything that shapes the schema.
const root = new URL('../../', import.meta.url).pathname;

function templateKey(): string {
  const hash = createHash('sha256');
  const dir = join(root, 'src/db/migrations');
  for (const file of readdirSync(dir).sort()) hash.update(file).update(readFileSync(join(dir, file)));
  hash.update(readFileSync(join(root, 'src/jobs/queue.ts')));
  hash.update(readFileSync(join(root, 'node_modules/pg-boss/package.json')));
  hash.update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')));
  return hash.digest('hex').slice(0, 16);
}

let cached: Promise<Blob> | null = null;

export function pgliteTemplate(): Promise<Blob> {
  cached ??= build();
  return cached;
}

async function build(): Promise<Blob> {
  const path = join(tmpdir(), `concierge-pglite-${templateKey()}.tar`);
  if (existsSync(path)) return new BytesBlob(readFileSync(path));
  const database = await openDatabase({ DATABASE_URL: 'pglite:memory:', DATABASE_SCHEMA: 'public' });
  await migrateToLatest(database.db, database.schema);
  const queue = await startQueue(database, { supervise: false });
  await queue.stop();
  const dump = await database.boss.pglite!.dumpDataDir('none');
  await database.close();
  const bytes = Buffer.from(await dump.arrayBuffer());
  const partial = `${path}.${randomBytes(4).toString('hex')}`;
  writeFileSync(partial, bytes);
  renameSync(partial, path);
  return new BytesBlob(bytes);
}
