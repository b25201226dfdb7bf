import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { BytesBlob } from './bytes-blob.ts';

// A new PGlite data directory starts from a copy of a freshly initialised one. PGlite's initdb was
// most of a first start (5.5–6.5 s of CPU: it initialises a second, in-memory instance and copies
// its files in), and its result is the same for every directory of one PGlite release. So the
// first start after an install or an upgrade keeps that result, as a tar in the user's cache
// directory ($XDG_CACHE_HOME/concierge, else ~/.cache/concierge), and every later empty directory
// is loaded from it. The copy is pristine: the service's migrations run on it as on any new
// database. Every copy shares initdb's system identifier, which only replication and backup
// tools that tell clusters apart read; an embedded database has neither.
//
// The cache is only trusted when the user owns it and nobody else can write to it (a planted tar
// would become the database); a cache that cannot be read or written only means no cache.

type PGliteClass = typeof PGlite;

function cacheDir(): string | null {
  try {
    return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'concierge');
  } catch {
    return null; // no home directory
  }
}

/** The PGlite release: its initdb output belongs to it. */
function pgliteVersion(): string {
  const manifest = new URL('../package.json', import.meta.resolve('@electric-sql/pglite'));
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
}

/** Ours alone: owned by this user, writable by nobody else. */
function private_(path: string): boolean {
  const stat = lstatSync(path);
  return (stat.isFile() || stat.isDirectory()) && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o022) === 0;
}

/** The cached tar as a file-backed Blob: read from disk when PGlite loads it, not copied into memory first. */
async function readCached(dir: string, path: string): Promise<Blob | null> {
  try {
    if (!private_(dir) || !private_(path)) return null;
    return new BytesBlob(readFileSync(path));
  } catch {
    return null;
  }
}

function writeCached(dir: string, path: string, bytes: Buffer): void {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!private_(dir)) return;
    const partial = `${path}.${randomBytes(6).toString('hex')}`;
    writeFileSync(partial, bytes, { mode: 0o600, flag: 'wx' });
    try {
      renameSync(partial, path);
    } catch {
      rmSync(partial, { force: true });
    }
  } catch {
    // Read-only home, full disk: the next empty directory runs initdb again.
  }
}

/**
 * A freshly initialised data directory, as a tar for PGlite's `loadDataDir`: the cached one, or a
 * new one (an in-memory initdb, as PGlite runs itself) that is then cached.
 */
export async function initialisedDataDir(PGliteClass: PGliteClass): Promise<Blob> {
  const dir = cacheDir();
  const path = dir ? join(dir, `pglite-initdb-${pgliteVersion()}.tar`) : null;
  const cached = dir && path ? await readCached(dir, path) : null;
  if (cached) return cached;
  const fresh = await PGliteClass.create();
  let dump: Blob;
  try {
    dump = await fresh.dumpDataDir('none');
  } finally {
    await fresh.close();
  }
  if (dir && path) writeCached(dir, path, Buffer.from(await dump.arrayBuffer()));
  return dump;
}
