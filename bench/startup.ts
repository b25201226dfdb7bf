// Start-up and memory: how long `concierge serve` takes from spawn to its first `GET /readyz` 200,
// and how much memory the process holds at rest once ready, against the process floor measured in
// the same run: a bare `node -e` that imports nothing and answers with node:http.
//
//   node --disable-warning=ExperimentalWarning bench/startup.ts
//   BENCH_ROUNDS=5 (rounds, each starting every variant once, in a rotating order)
//   BENCH_DATABASE_URL=postgres://… (default the local server at 127.0.0.1:5432/test; `none` skips PostgreSQL)
//
// Variants: PGlite on an empty data directory (a fresh one each round: initdb, then migrations),
// PGlite reopening an existing directory, PostgreSQL in an existing schema (migrated before the
// rounds, dropped after). The service runs as an operator starts it (`src/main.ts serve`, the
// defaults of development: one worker, the sandbox, the development IdP), with a compile cache of
// its own (NODE_COMPILE_CACHE, src/main.ts) that one start warms before the rounds: that first
// start is printed apart. So does the cache of PGlite's initdb (src/db/pglite-initdb.ts), kept in
// the run's own directory: the empty-directory rounds start from it, as every new directory after
// an install's first does. Memory is read REST_SECONDS after ready: RSS from /proc/<pid>/status,
// PSS from /proc/<pid>/smaps_rollup (Linux).
//
// Targets (issue 18 §2): an existing PGlite directory ready in < 3 s on a quiet machine, an empty
// one in < 6 s. On a busy machine every figure stretches; the ratio to the floor, measured in the
// same rounds, says what start-up costs beyond starting Node at all.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropSchemas } from '../src/db/index.ts';
import { load, percentile } from './lib/booking.ts';
import { BENCH_POSTGRES_URL, reachablePostgres } from './lib/postgres.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REST_SECONDS = 3;
const ROOT = join(import.meta.dirname, '..');
const POSTGRES = await reachablePostgres();
const work = mkdtempSync(join(tmpdir(), 'concierge-startup-'));
const compileCache = join(work, 'compile-cache');

const children = new Set<ChildProcess>();
process.on('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(work, { recursive: true, force: true });
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const progress = (message: string) => process.stderr.write(`  … ${message} (load ${load()})\n`);

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

interface Memory {
  rssMb: number;
  pssMb: number;
}

function memoryOf(pid: number): Memory {
  const kb = (text: string, key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN);
  return { rssMb: kb(readFileSync(`/proc/${pid}/status`, 'utf8'), 'VmRSS') / 1024, pssMb: kb(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), 'Pss') / 1024 };
}

interface Start {
  readyMs: number;
  memory: Memory;
  /** The service's own account of its start (the startupMs of its 'listening' line). */
  phases: Record<string, number> | null;
}

/** Spawns, polls /readyz until 200, rests, reads the memory, stops the process and waits for it. */
async function start(argv: string[], env: NodeJS.ProcessEnv, port: number): Promise<Start> {
  const started = performance.now();
  const child = spawn(process.execPath, argv, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (child.exitCode !== null) throw new Error(`the process exited (${child.exitCode}) before it was ready:\n${output.slice(-2000)}`);
      if (performance.now() - started > 180_000) throw new Error(`not ready after 180 s:\n${output.slice(-2000)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const readyMs = performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
    const memory = memoryOf(child.pid!);
    const line = output.split('\n').find((l) => l.includes('"startupMs"'));
    const phases = line ? (JSON.parse(line) as { startupMs: Record<string, number> }).startupMs : null;
    return { readyMs, memory, phases };
  } finally {
    child.kill('SIGTERM');
    await exited;
    children.delete(child);
  }
}

/** The process floor: Node itself, nothing imported, answering 200 with node:http. */
async function floor(): Promise<Start> {
  const port = await freePort();
  const code = `require('node:http').createServer((q, s) => s.end('{"status":"ready"}')).listen(${port}, '127.0.0.1')`;
  return start(['-e', code], { PATH: process.env.PATH }, port);
}

async function serve(databaseUrl: string, schema = 'public'): Promise<Start> {
  const port = await freePort();
  const env = {
    ...process.env,
    NODE_ENV: 'development',
    NODE_COMPILE_CACHE: compileCache,
    // The initdb cache (src/db/pglite-initdb.ts) of this run only: the first start fills it.
    XDG_CACHE_HOME: join(work, 'cache'),
    PORT: String(port),
    BASE_URL: `http://localhost:${port}`,
    SANDBOX_PORT: String(await freePort()),
    DATABASE_URL: databaseUrl,
    DATABASE_SCHEMA: schema,
    LOG_LEVEL: 'info',
    DRAIN_SECONDS: '0',
    OIDC_ISSUER: '',
  };
  return start(['--disable-warning=ExperimentalWarning', join(ROOT, 'src', 'main.ts'), 'serve'], env, port);
}

let emptyDirs = 0;
const freshDir = () => `pglite:${join(work, `empty-${emptyDirs++}`)}`;
const existingDir = `pglite:${join(work, 'existing')}`;
const schema = `bench_${randomBytes(4).toString('hex')}`;

type Variant = { key: string; label: string; run: () => Promise<Start> };
const variants: Variant[] = [
  { key: 'floor', label: 'bare node:http (floor)', run: floor },
  { key: 'existing', label: 'serve, PGlite, existing directory', run: () => serve(existingDir) },
  { key: 'empty', label: 'serve, PGlite, empty directory', run: () => serve(freshDir()) },
  ...(POSTGRES ? [{ key: 'postgres', label: 'serve, PostgreSQL, existing schema', run: () => serve(POSTGRES, schema) }] : []),
];

console.log(`start-up to the first GET /readyz 200, and memory at rest ${REST_SECONDS} s after; ${ROUNDS} rounds, each variant once per round in a rotating order; load average ${load()} (1, 5, 15 min; 2 cores)`);
const results = new Map<string, Start[]>(variants.map((v) => [v.key, []]));
const loads: string[] = [];
try {
  // Warm-up, not counted: the compile cache and the initdb cache are filled, the existing directory and schema created.
  progress('first start: compile cache and initdb cache cold, empty PGlite directory');
  const cold = await serve(existingDir);
  console.log(`  first start of all (no compile cache, no initdb cache yet, empty PGlite directory; as after an install): ${(cold.readyMs / 1000).toFixed(2)} s`);
  if (POSTGRES) {
    progress('creating the PostgreSQL schema');
    await serve(POSTGRES, schema);
  }
  for (let round = 0; round < ROUNDS; round++) {
    loads.push(load());
    progress(`round ${round + 1} of ${ROUNDS}`);
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(i + round) % variants.length]!;
      results.get(variant.key)!.push(await variant.run());
    }
  }
} finally {
  if (POSTGRES) await dropSchemas(POSTGRES, schema).catch(() => {});
}

const median = (values: number[]) => percentile(values, 50);
const floorReady = median(results.get('floor')!.map((s) => s.readyMs));
const floorRss = median(results.get('floor')!.map((s) => s.memory.rssMb));
console.log(`  load average at each round: ${loads.join(' | ')}; at the end ${load()}`);
console.log(`  ${'variant'.padEnd(36)} ${'ready p50'.padStart(10)} ${'min–max'.padStart(13)} ${'× floor'.padStart(8)}   ${'RSS'.padStart(7)} ${'PSS'.padStart(7)} ${'× floor RSS'.padStart(11)}`);
for (const variant of variants) {
  const starts = results.get(variant.key)!;
  const ready = starts.map((s) => s.readyMs);
  const rss = median(starts.map((s) => s.memory.rssMb));
  const pss = median(starts.map((s) => s.memory.pssMb));
  console.log(
    `  ${variant.label.padEnd(36)} ${`${(median(ready) / 1000).toFixed(2)} s`.padStart(10)} ${`${(Math.min(...ready) / 1000).toFixed(2)}–${(Math.max(...ready) / 1000).toFixed(2)}`.padStart(13)} ${`${(median(ready) / floorReady).toFixed(1)}×`.padStart(8)}   ${`${rss.toFixed(0)} MB`.padStart(7)} ${`${pss.toFixed(0)} MB`.padStart(7)} ${`${(rss / floorRss).toFixed(1)}×`.padStart(11)}`,
  );
}
if (!POSTGRES) console.log(`  serve, PostgreSQL                    skipped (${BENCH_POSTGRES_URL} not reachable)`);
console.log('  where the service\'s start goes (medians of its startupMs, ms; cpu = process CPU time when listening):');
for (const variant of variants.filter((v) => v.key !== 'floor')) {
  const phases = results.get(variant.key)!.map((s) => s.phases).filter((p): p is Record<string, number> => p !== null);
  if (!phases.length) continue;
  const names = Object.keys(phases[0]!);
  console.log(`    ${variant.label}: ${names.map((n) => `${n} ${median(phases.map((p) => p[n] ?? NaN)).toFixed(0)}`).join(', ')}`);
}
const verdict = (key: string, targetS: number) => {
  const p50 = median(results.get(key)!.map((s) => s.readyMs)) / 1000;
  const busy = loadavg()[0]! > 3 ? ' (on a busy machine: the target is for a quiet one)' : '';
  return `${p50.toFixed(2)} s against < ${targetS} s: ${p50 < targetS ? 'met' : 'missed'}${busy}`;
};
console.log(`  targets (quiet machine): existing PGlite directory ${verdict('existing', 3)}; empty directory ${verdict('empty', 6)}`);
