// Scale-out: concurrent restaurant bookings to paused_payment on PostgreSQL, with one `concierge
// worker` process and then with two, each process separate as docs/deploy.md lays them out: one web
// node (`concierge serve`, WORKERS=0) takes the jobs over REST and the workers run them in their own
// Chromium. The reference is the one-worker run; the ratio is two-worker ÷ one-worker throughput.
//
//   npm run bench -- scale
//   BENCH_BOOKINGS=16 (per configuration)  BENCH_WORKERS=4 (WORKERS of each worker process)
//   BENCH_DATABASE_URL=postgres://… (default the local server at 127.0.0.1:5432/test; a schema of its own, dropped after)
//
// For each configuration: the worker processes start and each holds one booking first (their
// Chromium is launched and warm), those are cancelled; then BENCH_BOOKINGS bookings are created at
// once and polled to paused_payment. Throughput is bookings ÷ (first creation to last pause, from
// the service's own stamps). Sampled every 250 ms meanwhile: PSS of each worker process with its
// Chromium, how many jobs are running and held, and the connections PostgreSQL reports for each of
// our processes (pg_stat_activity, attributed by client port). Memory per held booking: (PSS with
// every booking held − PSS at rest) ÷ bookings. Memory per running booking: at the samples with the
// most bookings running, (PSS − rest − held × per held) ÷ running, the median of those: an
// estimate, running and held tabs share one Chromium. CPU per booking: the worker trees' CPU time
// over the run ÷ bookings (the web node's apart; PostgreSQL's is not counted).
//
// Every process shares this machine's cores with the database and the sandbox sites: when the
// one-worker run already keeps the cores busy, a second worker process cannot add throughput, and
// the ratio says how close to that cap the machine is, not how far two machines would go.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { dropSchemas, openDatabase } from '../src/db/index.ts';
import { migrateToLatest } from '../src/db/migrate.ts';
import { mintApiKey } from '../src/auth/api-keys.ts';
import { startSandbox } from '../sandbox/index.ts';
import { call } from '../test/helpers/http.ts';
import { startChild, type ChildService } from '../test/helpers/processes.ts';
import { freePort, requests } from '../test/helpers/service.ts';
import { until } from '../test/helpers/wait.ts';
import { load, percentile, ratio, seconds, settle, why } from './lib/booking.ts';
import { mb, treeUsage, type TreeUsage } from './lib/process-tree.ts';
import { connectionsByProcess } from './lib/pg-connections.ts';
import { BENCH_POSTGRES_URL, reachablePostgres } from './lib/postgres.ts';

const BOOKINGS = Number(process.env.BENCH_BOOKINGS ?? 16);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 4);
/** How long one configuration's bookings may take before the run gives up (a loaded machine). */
const RUN_DEADLINE_MS = 240_000;
const STARTUP_MS = 120_000;

const POSTGRES = await reachablePostgres();
if (!POSTGRES) {
  console.log(`bench/scale: skipped, no PostgreSQL answers at ${BENCH_POSTGRES_URL} (set BENCH_DATABASE_URL)`);
  process.exit(0);
}

const children = new Set<ChildService>();
process.on('exit', () => {
  for (const child of children) child.child.kill('SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));

const schema = `bench_scale_${randomBytes(4).toString('hex')}`;
const sandbox = await startSandbox();
const env = {
  NODE_ENV: 'test',
  DATABASE_URL: POSTGRES,
  DATABASE_SCHEMA: schema,
  SECRET_KEY: randomBytes(32).toString('base64url'),
  PROVIDER_URL_TEMPLATE: `http://{provider}.localhost:${sandbox.port}`,
  CHROMIUM_PATH: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  LOG_LEVEL: 'info',
  // Stopping a worker ends its holds at once: they are this run's, nobody pays them.
  DRAIN_SECONDS: '0',
};
const database = await openDatabase(loadConfig({}, { DATABASE_URL: POSTGRES, DATABASE_SCHEMA: schema }));
await migrateToLatest(database.db, schema);
const { key } = await mintApiKey(database.db, { organizationName: 'Bench Travel', allowedJobTypes: ['restaurant'], live: false, dailyLimit: null });
const admin = new pg.Client({ connectionString: POSTGRES });
await admin.connect();

let web: ChildService | undefined;
let webUrl = '';

interface Run {
  workers: number;
  paused: number;
  wallMs: number;
  perSecond: number;
  heldPerBookingKb: number;
  runningPerBookingKb: number | null;
  workerCpuMsPerBooking: number;
  webCpuMsPerBooking: number;
  peakConnections: Record<string, number>;
  restConnections: Record<string, number>;
  rest: TreeUsage;
}

const api = (method: string, path: string, body?: unknown) => call(webUrl, method, path, { key, ...(body === undefined ? {} : { body }) });

async function startWorker(n: number): Promise<ChildService> {
  const worker = startChild(['worker'], { ...env, WORKERS: String(WORKERS), BASE_URL: webUrl });
  children.add(worker);
  await worker.logged('worker started', STARTUP_MS);
  process.stderr.write(`  … worker ${n} started (load ${load()})\n`);
  return worker;
}

/** Creates bookings at once and polls each to its end (paused_payment, or why not). */
async function book(names: string[]): Promise<any[]> {
  return Promise.all(
    names.map(async (name) => {
      const created = await api('POST', '/api/v1/execution-jobs', requests.restaurant({ restaurant_name: name }, { allowedProviders: ['tablebook'] }));
      assert.equal(created.status, 202, created.text);
      return Promise.race([
        settle({ url: webUrl }, key, created.body.jobId, 500),
        new Promise((_, reject) => setTimeout(() => reject(new Error(`booking ${name} not settled within ${RUN_DEADLINE_MS / 1000} s`)), RUN_DEADLINE_MS).unref()),
      ]);
    }),
  );
}

/** Lets every hold go (through the web node, which relays to the holder) and waits for the jobs to end. */
async function release(jobs: any[]): Promise<void> {
  for (const job of jobs.filter((j) => j.status === 'paused_payment')) await api('POST', `/api/v1/execution-jobs/${job.jobId}/cancel`);
  for (const job of jobs) await until(`job ${job.jobId} let go`, async () => (await api('GET', `/api/v1/execution-jobs/${job.jobId}`)).body.status !== 'paused_payment', 60_000, 250);
}

async function configuration(count: number): Promise<Run> {
  const workers: ChildService[] = [];
  for (let n = 1; n <= count; n++) workers.push(await startWorker(n));
  const pids = () => Object.fromEntries([['web', web!.child.pid!], ...workers.map((w, i) => [`worker ${i + 1}`, w.child.pid!])]) as Record<string, number>;
  // Warm-up: every worker process holds one booking (its Chromium launched, the code paths run).
  const nodes = async () => (await database.db.selectFrom('nodes').select('id').where('role', '=', 'worker').execute()).map((r) => r.id);
  for (let round = 1; ; round++) {
    const warm = await book(Array.from({ length: 2 * count }, (_, i) => `Warm-up ${count}.${round}.${i}`));
    const holders = new Set((await database.db.selectFrom('jobs').select('hold_instance').where('id', 'in', warm.map((j) => j.jobId)).execute()).map((r) => r.hold_instance));
    await release(warm);
    if ((await nodes()).every((id) => holders.has(id)) || round === 3) break;
  }
  const sum = (usages: TreeUsage[]) => usages.reduce((a, u) => ({ rssKb: a.rssKb + u.rssKb, pssKb: a.pssKb + u.pssKb, cpuMs: a.cpuMs + u.cpuMs, processes: a.processes + u.processes }));
  const workerTrees = () => sum(workers.map((w) => treeUsage(w.child.pid!, { includeRoot: true })));
  await new Promise((r) => setTimeout(r, 2_000));
  const rest = workerTrees();
  const restConnections = await connectionsByProcess(admin, pids());
  const webCpu0 = treeUsage(web!.child.pid!, { includeRoot: true }).cpuMs;

  const samples: Array<{ pssKb: number; running: number; held: number }> = [];
  const peakConnections: Record<string, number> = {};
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const [statuses, connections] = await Promise.all([
        database.db.selectFrom('jobs').select(['status', database.db.fn.countAll<number>().as('n')]).where('status', 'in', ['running', 'paused_payment']).groupBy('status').execute(),
        connectionsByProcess(admin, pids()),
      ]);
      const n = (status: string) => Number(statuses.find((s) => s.status === status)?.n ?? 0);
      samples.push({ pssKb: workerTrees().pssKb, running: n('running'), held: n('paused_payment') });
      for (const [name, c] of Object.entries(connections)) peakConnections[name] = Math.max(peakConnections[name] ?? 0, c);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();

  console.log(`${count} worker process${count > 1 ? 'es' : ''} (WORKERS=${WORKERS} each), ${BOOKINGS} restaurant bookings created at once; load average ${load()} at the start:`);
  const jobs = await book(Array.from({ length: BOOKINGS }, (_, i) => `Scale ${count}.${i} ${randomBytes(3).toString('hex')}`));
  const cpuAtEnd = workerTrees().cpuMs;
  const webCpu = treeUsage(web!.child.pid!, { includeRoot: true }).cpuMs - webCpu0;
  await new Promise((r) => setTimeout(r, 2_000));
  const held = workerTrees();
  sampling = false;
  await sampler;

  const pausedJobs = jobs.filter((j) => j.status === 'paused_payment');
  for (const job of jobs.filter((j) => j.status !== 'paused_payment')) console.log(`  not paused: ${why(job)}`);
  const first = Math.min(...jobs.map((j) => Date.parse(j.createdAt)));
  const last = Math.max(...pausedJobs.map((j) => Date.parse(j.decisionLog.find((e: any) => e.type === 'paused_payment').timestamp)));
  const wallMs = last - first;
  const heldPerBookingKb = (held.pssKb - rest.pssKb) / Math.max(1, pausedJobs.length);
  const busiest = Math.max(...samples.map((s) => s.running));
  const runningEstimates = samples.filter((s) => s.running === busiest && busiest > 0).map((s) => (s.pssKb - rest.pssKb - s.held * heldPerBookingKb) / s.running);
  const run: Run = {
    workers: count,
    paused: pausedJobs.length,
    wallMs,
    perSecond: (pausedJobs.length / wallMs) * 1000,
    heldPerBookingKb,
    runningPerBookingKb: runningEstimates.length ? percentile(runningEstimates, 50) : null,
    workerCpuMsPerBooking: (cpuAtEnd - rest.cpuMs) / Math.max(1, pausedJobs.length),
    webCpuMsPerBooking: webCpu / Math.max(1, pausedJobs.length),
    peakConnections,
    restConnections,
    rest,
  };
  console.log(`  paused_payment ${run.paused}/${BOOKINGS} in ${seconds(wallMs)} (first creation to last pause): ${run.perSecond.toFixed(2)} bookings/s`);
  console.log(`  worker processes with their Chromium: at rest PSS ${mb(rest.pssKb)} MB (${rest.processes} processes); all ${run.paused} held PSS ${mb(held.pssKb)} MB`);
  console.log(`  per held booking ${mb(heldPerBookingKb)} MB PSS; per running booking ~${run.runningPerBookingKb === null ? '?' : mb(run.runningPerBookingKb)} MB PSS (at the ${runningEstimates.length} samples with ${busiest} running)`);
  console.log(`  CPU per booking: worker processes and Chromium ${seconds(run.workerCpuMsPerBooking)}, web node ${seconds(run.webCpuMsPerBooking)} (PostgreSQL not counted)`);
  console.log(`  PostgreSQL connections (pg_stat_activity, by process): at rest ${JSON.stringify(restConnections)}, peak ${JSON.stringify(peakConnections)}`);
  console.log(`  load average at the end: ${load()}`);

  await release(jobs);
  for (const worker of workers) {
    await worker.signal('SIGTERM');
    await worker.exited;
    children.delete(worker);
  }
  return run;
}

try {
  console.log(`load average at start: ${load()} (${cpus().length} cores here, shared by every process of the run, PostgreSQL and the sandbox sites)`);
  const port = await freePort();
  webUrl = `http://127.0.0.1:${port}`;
  web = startChild(['serve'], { ...env, PORT: String(port), BASE_URL: webUrl, WORKERS: '0' });
  children.add(web);
  await web.logged('address', STARTUP_MS);
  const one = await configuration(1);
  const two = await configuration(2);
  console.log('summary:');
  console.log(`  reference: 1 worker process, ${one.perSecond.toFixed(2)} bookings/s (${one.paused}/${BOOKINGS} paused in ${seconds(one.wallMs)})`);
  console.log(`  2 worker processes: ${two.perSecond.toFixed(2)} bookings/s (${two.paused}/${BOOKINGS} in ${seconds(two.wallMs)}) = ${ratio(two.perSecond, one.perSecond)} the reference`);
  const cpuPerBooking = (one.workerCpuMsPerBooking + two.workerCpuMsPerBooking) / 2;
  console.log(`  CPU per booking (workers and Chromium) ${seconds(cpuPerBooking)}: about ${(60_000 / cpuPerBooking).toFixed(0)} bookings per core-minute of worker CPU, if nothing else ran`);
  console.log(`  memory per held booking ${mb(one.heldPerBookingKb)} / ${mb(two.heldPerBookingKb)} MB PSS; per running ~${one.runningPerBookingKb === null ? '?' : mb(one.runningPerBookingKb)} / ${two.runningPerBookingKb === null ? '?' : mb(two.runningPerBookingKb)} MB (1 / 2 worker processes)`);
  console.log(`load average at end: ${load()}`);
} finally {
  for (const child of children) await child.signal('SIGKILL');
  await admin.end();
  await database.close();
  await sandbox.close();
  await dropSchemas(POSTGRES, schema);
}
