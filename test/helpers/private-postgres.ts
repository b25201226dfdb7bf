import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './service.ts';

// A PostgreSQL cluster of the test's own: `initdb` into a temporary directory, `pg_ctl` on a free
// loopback port with its Unix socket inside that directory. A test may stop it, crash it, freeze it
// (SIGSTOP on every one of its processes) and bring it back, which it must never do to the machine's
// shared server. initdb refuses to run as root: as root, the cluster runs as the `postgres` OS user,
// which owns the directory.

const run = promisify(execFile);

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  readonly url: string;
  readonly port: number;
  /** Stops the server (`immediate`: as a crash, the next start recovers from the WAL; `fast`: a clean stop). */
  stop(mode?: 'immediate' | 'fast'): Promise<void>;
  /** Starts it again on the same port and directory. */
  start(): Promise<void>;
  /** SIGSTOP to the postmaster and every backend: connections stay open and nothing answers. */
  freeze(): void;
  /** SIGCONT to what freeze() stopped. */
  thaw(): void;
  /** Stops it whatever its state (thawed first) and deletes its directory. Safe to call twice. */
  remove(): Promise<void>;
}

/** The directory of initdb/pg_ctl: PG_BIN, else the newest /usr/lib/postgresql/<version>/bin, else PATH. */
export function postgresBinaries(): string {
  const candidates: string[] = [];
  if (process.env.PG_BIN) candidates.push(process.env.PG_BIN);
  if (existsSync('/usr/lib/postgresql')) {
    const versions = readdirSync('/usr/lib/postgresql').filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
    candidates.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  }
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) candidates.push(dir);
  const found = candidates.find((dir) => existsSync(join(dir, 'initdb')) && existsSync(join(dir, 'pg_ctl')));
  if (!found) {
    throw new Error('PostgreSQL server binaries (initdb, pg_ctl) not found: install the Debian package postgresql (or set PG_BIN to their directory). This test starts a private cluster and cannot run without them.');
  }
  return found;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBinaries();
  const asRoot = userInfo().uid === 0;
  const dir = mkdtempSync(join(tmpdir(), 'concierge-pg-'));
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const data = join(dir, 'data');
  const port = await freePort();
  /** argv run as the cluster's owner. */
  const as = (command: string, args: string[]): [string, string[]] => (asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args]);
  const pgCtl = (args: string[]) => {
    const [command, argv] = as(join(bin, 'pg_ctl'), ['-D', data, ...args]);
    return run(command, argv, { timeout: 60_000 });
  };
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=200`;
  const start = async () => {
    await pgCtl(['start', '-w', '-t', '30', '-l', join(dir, 'server.log'), '-o', options]);
  };
  let stopped: number[] = [];
  let removed = false;
  const postmasterPid = (): number | null => {
    const pidFile = join(data, 'postmaster.pid');
    return existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').split('\n')[0]) : null;
  };
  /** The postmaster's children (the backends, the background processes). */
  const childrenOf = (postmaster: number): number[] =>
    readdirSync('/proc').filter((p) => /^\d+$/.test(p)).map(Number).filter((pid) => {
      try {
        // Field 4 of /proc/<pid>/stat is the parent; the name (field 2) may hold spaces, so read after its ')'.
        return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === postmaster;
      } catch {
        return false;
      }
    });
  const thaw = () => {
    for (const pid of stopped) {
      try {
        process.kill(pid, 'SIGCONT');
      } catch {
        // Gone already.
      }
    }
    stopped = [];
  };
  const removeNow = () => {
    if (removed) return;
    removed = true;
    thaw();
    const [command, argv] = as(join(bin, 'pg_ctl'), ['-D', data, 'stop', '-m', 'immediate', '-w', '-t', '30']);
    if (existsSync(join(data, 'postmaster.pid'))) spawnSync(command, argv, { stdio: 'ignore', timeout: 30_000 });
    rmSync(dir, { recursive: true, force: true });
  };
  // A test process that ends without its `after` (an exception, Ctrl-C, the runner's SIGTERM) still
  // takes its cluster with it; a signal is raised again once the cluster is gone.
  process.once('exit', removeNow);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      removeNow();
      process.kill(process.pid, signal);
    });
  }

  try {
    const [command, argv] = as(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions']);
    await run(command, argv, { timeout: 120_000 });
    await start();
  } catch (error) {
    removeNow();
    throw error;
  }

  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    async stop(mode = 'immediate') {
      thaw();
      await pgCtl(['stop', '-m', mode, '-w', '-t', '30']);
    },
    start,
    freeze() {
      const postmaster = postmasterPid();
      if (postmaster === null) throw new Error('the private PostgreSQL is not running');
      // The postmaster first: stopped, it forks no new backend while the others are stopped.
      for (const pid of [postmaster, ...childrenOf(postmaster)]) {
        process.kill(pid, 'SIGSTOP');
        stopped.push(pid);
      }
    },
    thaw,
    async remove() {
      removeNow();
    },
  };
}
