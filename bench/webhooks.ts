// Webhook delivery (issue 15 §6): BENCH_JOBS jobs (default 100) of one organisation change status
// at the same moment (each a committed transition to `error`, as a cancel makes it), and the
// organisation's endpoint, a local receiver in its own process, gets one delivery per job. Measured:
// the delay from each status change's commit to its delivery's arrival (p50, p99, max) and the
// deliveries per second of the round (first commit to last arrival), over BENCH_ROUNDS rounds
// (default 3), on PGlite and on PostgreSQL (BENCH_DATABASE_URL; "none" skips it). The reference is
// a bare POST loop from this process to the same receiver (the same number of POSTs, as many at a
// time as the service's webhook worker sends, 20), with the same body size: the most a sender
// could do here without a queue, signatures or a database. Targets: p50 < 1 s, p99 < 3 s.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { mintApiKey } from '../src/auth/api-keys.ts';
import { loadConfig } from '../src/config.ts';
import { dropSchemas } from '../src/db/index.ts';
import { transition } from '../src/jobs/transition.ts';
import { createLogger } from '../src/observability/logger.ts';
import { startService } from '../src/server.ts';
import { createEndpoint } from '../src/webhooks/endpoints.ts';
import { BENCH_POSTGRES_URL, reachablePostgres } from './lib/postgres.ts';

const JOBS = Number(process.env.BENCH_JOBS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** The service's webhook worker takes up to 20 deliveries at a time (webhooks/deliver.ts): the reference sends as many at once. */
const REFERENCE_CONCURRENCY = 20;
const DELIVERY_DEADLINE_MS = 60_000;

interface Receipt {
  webhookId: string | null;
  jobId: string | null;
  at: number;
}

const receiverChild = fork(fileURLToPath(new URL('./lib/webhook-receiver.ts', import.meta.url)), [], {
  execArgv: ['--disable-warning=ExperimentalWarning'],
  stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
});
const [{ url: receiverUrl }] = (await once(receiverChild, 'message')) as [{ url: string }];

async function receipts(): Promise<Receipt[]> {
  receiverChild.send('receipts');
  const [list] = (await once(receiverChild, 'message')) as [Receipt[]];
  return list;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
const median = (values: number[]) => quantile([...values].sort((a, b) => a - b), 0.5);

/** The reference: JOBS bare POSTs of a delivery-sized body, REFERENCE_CONCURRENCY at a time; POSTs per second. */
async function reference(bodyBytes: number): Promise<number> {
  const body = JSON.stringify({ type: 'job.error', timestamp: new Date().toISOString(), data: { jobId: null, pad: 'x'.repeat(Math.max(0, bodyBytes - 80)) } });
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: REFERENCE_CONCURRENCY }, async () => {
      while (next++ < JOBS) {
        const response = await fetch(receiverUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        await response.arrayBuffer();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await receipts();
  return JOBS / seconds;
}

interface Round {
  delays: number[];
  perSecond: number;
  bodyBytes: number;
}

async function measure(databaseUrl: string): Promise<Round[]> {
  const schema = databaseUrl.startsWith('postgres') ? `bench_${randomBytes(5).toString('hex')}` : 'public';
  const config = loadConfig({}, { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema, PORT: '0', WORKERS: '0', LOG_LEVEL: 'warn', NODE_ENV: 'test', API_KEY_RATE_LIMIT: '1000000', SANDBOX: 'false' });
  const service = await startService(config, createLogger(config.LOG_LEVEL));
  const { db } = service.services;
  const rounds: Round[] = [];
  try {
    const base = service.url.replace('[::1]', '127.0.0.1');
    const { key } = await mintApiKey(db, { organizationName: 'Bench', allowedJobTypes: ['restaurant'], live: false, dailyLimit: null });
    await createEndpoint({ db, secretKey: service.services.secretKey, allowPrivate: true, overlapSeconds: 0 }, 'Bench', { url: receiverUrl });
    const date = new Date(Date.now() + 7 * 86400_000).toISOString().slice(0, 10);
    for (let round = 0; round < ROUNDS; round++) {
      const ids: string[] = [];
      for (let i = 0; i < JOBS; i++) {
        const created = await fetch(`${base}/api/v1/execution-jobs`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ request: { scenario: 'restaurant', params: { restaurant_name: 'Casa Azul', city: 'Lisbon', date, time: '19:30', covers: 2 } }, profile: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' } }),
        });
        if (created.status !== 202) throw new Error(`job creation answered ${created.status}`);
        ids.push(((await created.json()) as { jobId: string }).jobId);
      }
      await receipts();
      // Every job changes status at once; each one's moment is when its transaction committed.
      const changed = new Map<string, number>();
      await Promise.all(
        ids.map(async (id) => {
          await transition(db, id, {
            to: 'error',
            set: { summary: 'Stopped by the benchmark.', error: JSON.stringify({ reason: 'bench', step: null, provider: null, url: null, message: 'benchmark' }) },
            event: { type: 'job_aborted', message: 'The benchmark stopped the job.' },
          });
          changed.set(id, Date.now());
        }),
      );
      const arrived = new Map<string, number>();
      for (const deadline = Date.now() + DELIVERY_DEADLINE_MS; arrived.size < JOBS && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        // At least once: a repeat (same job) keeps its first arrival.
        for (const r of await receipts()) if (r.jobId && changed.has(r.jobId) && !arrived.has(r.jobId)) arrived.set(r.jobId, r.at);
      }
      if (arrived.size < JOBS) throw new Error(`round ${round + 1}: ${arrived.size} of ${JOBS} deliveries arrived within ${DELIVERY_DEADLINE_MS / 1000} s`);
      const delays = ids.map((id) => arrived.get(id)! - changed.get(id)!);
      const first = Math.min(...changed.values());
      const last = Math.max(...arrived.values());
      const sample = await db.selectFrom('webhook_deliveries').select('event').limit(1).executeTakeFirstOrThrow();
      rounds.push({ delays, perSecond: JOBS / ((last - first) / 1000), bodyBytes: JSON.stringify(sample.event).length + 80 });
    }
  } finally {
    await service.close();
    if (schema !== 'public') await dropSchemas(databaseUrl, schema);
  }
  return rounds;
}

console.log(`webhooks: ${JOBS} jobs of one organisation change status at once, ${ROUNDS} rounds per backend; one endpoint, a local receiver in its own process`);
const backends: Array<{ name: string; url: string }> = [{ name: 'PGlite', url: 'pglite:memory:' }];
if (await reachablePostgres()) backends.push({ name: 'PostgreSQL', url: BENCH_POSTGRES_URL });
else console.log(`  PostgreSQL at ${BENCH_POSTGRES_URL} is not reachable: skipped`);

const results: Array<{ name: string; rounds: Round[] }> = [];
try {
  for (const backend of backends) results.push({ name: backend.name, rounds: await measure(backend.url) });
  const referenceRate = await reference(results[0]!.rounds[0]!.bodyBytes);
  console.log('');
  console.log(`${'backend'.padEnd(12)} ${'delay p50 ms'.padStart(13)} ${'p99 ms'.padStart(8)} ${'max ms'.padStart(8)} ${'deliveries/s'.padStart(13)} ${'of reference'.padStart(13)}`);
  let met = true;
  for (const { name, rounds } of results) {
    const delays = rounds.flatMap((r) => r.delays).sort((a, b) => a - b);
    const p50 = quantile(delays, 0.5);
    const p99 = quantile(delays, 0.99);
    const rate = median(rounds.map((r) => r.perSecond));
    met &&= p50 < 1000 && p99 < 3000;
    console.log(`${name.padEnd(12)} ${String(p50).padStart(13)} ${String(p99).padStart(8)} ${String(delays.at(-1)).padStart(8)} ${rate.toFixed(0).padStart(13)} ${(rate / referenceRate).toFixed(2).padStart(13)}`);
  }
  console.log(`${'reference'.padEnd(12)} ${'—'.padStart(13)} ${'—'.padStart(8)} ${'—'.padStart(8)} ${referenceRate.toFixed(0).padStart(13)} ${'1.00'.padStart(13)}   (bare POST loop, ${REFERENCE_CONCURRENCY} at a time)`);
  console.log(`(deliveries/s: the median round's ${JOBS} deliveries over first commit to last arrival; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${availableParallelism()} CPUs)`);
  console.log(`\ntarget (delay p50 < 1 s, p99 < 3 s, ${JOBS} jobs at once): ${met ? 'met' : 'NOT met'}`);
} finally {
  receiverChild.send('stop');
  await once(receiverChild, 'exit');
}
