// GET of a job's status (100 jobs, round robin) under concurrent load: the Concierge service on PGlite and on PostgreSQL,
// side by side with a bare node:http server answering the same JSON from memory (the ceiling).
// Each server runs in its own child process; autocannon runs here. Prints requests/s, p50 and p99
// latency, and the ratio to the ceiling. Environment: BENCH_DURATION (seconds, default 10),
// BENCH_CONNECTIONS (default 50), BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test;
// "none" skips PostgreSQL), BENCH_BACKENDS (default "pglite,postgres").
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { availableParallelism, loadavg } from 'node:os';
import autocannon from 'autocannon';
import { BENCH_POSTGRES_URL, reachablePostgres } from './lib/postgres.ts';

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TARGET = fileURLToPath(new URL('./lib/rest-read-target.ts', import.meta.url));

interface Target {
  child: ChildProcess;
  url: string;
  /** The job URLs to read, round robin across all connections. */
  paths: string[];
  key: string;
}

async function start(args: string[], init?: string): Promise<Target> {
  // BENCH_PROF=<dir> writes a V8 CPU profile of each service process there.
  const profile = process.env.BENCH_PROF && args[0] === 'service' ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROF}`] : [];
  const child = fork(TARGET, args, { execArgv: ['--disable-warning=ExperimentalWarning', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  if (init !== undefined) child.send(init);
  const [info] = (await Promise.race([once(child, 'message'), once(child, 'exit').then(([code]) => Promise.reject(new Error(`target ${args[0]} exited with ${code}`)))])) as [
    { url: string; paths: string[]; key: string },
  ];
  return { child, ...info };
}

/** CPU time the target process has used so far, in microseconds. */
async function cpuOf(target: Target): Promise<number> {
  target.child.send('cpu');
  const [usage] = (await once(target.child, 'message')) as [{ user: number; system: number }];
  return usage.user + usage.system;
}

async function stop(target: Target): Promise<void> {
  target.child.send('stop');
  await once(target.child, 'exit');
}

interface Figures {
  rps: number;
  total: number;
  /** CPU time of the server process per request, µs: less sensitive than req/s to other load on the machine. */
  cpuPerRequest?: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

async function load(target: Target, seconds: number): Promise<Figures> {
  let next = 0;
  const result = await autocannon({
    url: target.url,
    requests: [{ setupRequest: (request) => ({ ...request, path: target.paths[next++ % target.paths.length]! }) }],
    connections: CONNECTIONS,
    duration: seconds,
    headers: target.key ? { authorization: `Bearer ${target.key}` } : {},
  });
  return { rps: result.requests.average, total: result.requests.total, p50: result.latency.p50, p99: result.latency.p99, non2xx: result.non2xx, errors: result.errors };
}

async function measure(name: string, target: Target): Promise<Figures> {
  await load(target, Math.min(3, DURATION)); // warm-up: JIT, connection pools, caches
  const cpuBefore = await cpuOf(target);
  const figures = await load(target, DURATION);
  figures.cpuPerRequest = (await cpuOf(target)) - cpuBefore;
  figures.cpuPerRequest /= Math.max(1, figures.total);
  if (figures.non2xx || figures.errors) console.warn(`  ${name}: ${figures.non2xx} non-2xx replies, ${figures.errors} errors`);
  return figures;
}

const rows: Array<{ name: string; figures: Figures }> = [];
console.log(`rest-read: GET /api/v1/execution-jobs/{jobId}, ${CONNECTIONS} connections, ${DURATION} s per target (after a warm-up)`);

const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const services: Array<{ name: string; url: string }> = BACKENDS.includes('pglite') ? [{ name: 'service on PGlite', url: 'pglite:memory:' }] : [];
if (!BACKENDS.includes('postgres')) {
  // not asked for
} else if (await reachablePostgres()) services.push({ name: 'service on PostgreSQL', url: BENCH_POSTGRES_URL });
else console.log(`  PostgreSQL at ${BENCH_POSTGRES_URL} is not reachable: skipped`);

let body = '';
for (const service of services) {
  const target = await start(['service', service.url]);
  try {
    const probe = await fetch(`${target.url}${target.paths[0]}`, { headers: { authorization: `Bearer ${target.key}` } });
    if (probe.status !== 200) throw new Error(`${service.name}: GET answered ${probe.status}`);
    body ||= await probe.text();
    rows.push({ name: service.name, figures: await measure(service.name, target) });
    // Let requests still queued in the service finish before it closes its database.
    await new Promise((resolve) => setTimeout(resolve, 1000));
  } finally {
    await stop(target);
  }
}

const ceiling = await start(['ceiling'], body);
try {
  rows.unshift({ name: 'ceiling (bare node:http)', figures: await measure('ceiling', ceiling) });
} finally {
  await stop(ceiling);
}

const top = rows[0]!.figures.rps;
console.log('');
console.log(`${'target'.padEnd(26)} ${'req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'of ceiling'.padStart(11)} ${'server CPU µs/req'.padStart(18)}`);
for (const { name, figures } of rows) {
  console.log(
    `${name.padEnd(26)} ${figures.rps.toFixed(0).padStart(9)} ${String(figures.p50).padStart(7)} ${String(figures.p99).padStart(7)} ${(figures.rps / top).toFixed(2).padStart(11)} ${(figures.cpuPerRequest ?? 0).toFixed(0).padStart(18)}`,
  );
}
console.log(`(load average during the run: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} CPUs; the PostgreSQL server's own CPU is not in the last column)`);
const pgRow = rows.find((r) => r.name.includes('PostgreSQL'));
if (pgRow) {
  const ratio = pgRow.figures.rps / top;
  const met = ratio >= 0.3 && pgRow.figures.p99 < 25;
  console.log(`\ntarget on PostgreSQL (>= 0.30 of the ceiling, p99 < 25 ms): ${met ? 'met' : 'NOT met'} (${ratio.toFixed(2)}, p99 ${pgRow.figures.p99} ms)`);
}
