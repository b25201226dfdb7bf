// Executor benchmark: the real service on an ephemeral port with the sandbox provider sites, jobs
// created over REST with an API key, exactly as a client would.
//
//   node --disable-warning=ExperimentalWarning bench/executor.ts
//   BENCH_RUNS=7 BENCH_CONCURRENT=20 BENCH_DATABASE_URL=postgres://… node … bench/executor.ts
//
// 1. Time from job creation (POST returns) to paused_payment, p50/p90 of BENCH_RUNS sequential jobs,
//    for a restaurant, hotel, flight and activity booking, on one warmed-up worker.
// 2. BENCH_CONCURRENT restaurant bookings at once on one worker process (WORKERS = that number):
//    wall time, peak memory of the whole browser process tree (sum of RSS, and of PSS, of every
//    process descending from this one other than itself: Chromium's browser, GPU, network and
//    renderer processes), and memory per concurrent job (peak minus the idle browser, divided by
//    the number of jobs; the held sessions stay open at the payment page, so this includes them).
import { readdirSync, readFileSync } from 'node:fs';
import { call } from '../test/helpers/http.ts';
import { startTestService, type TestService } from '../test/helpers/service.ts';
import { requests } from '../test/executor/helpers.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 20);
const DATABASE = process.env.BENCH_DATABASE_URL ?? 'pglite:memory:';

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

async function untilPaused(service: TestService, key: string, jobId: string): Promise<string> {
  for (;;) {
    const read = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
    if (!['pending', 'running'].includes(read.body.status)) return read.body.status;
    await new Promise((r) => setTimeout(r, 15));
  }
}

async function timedBooking(service: TestService, key: string, body: unknown): Promise<number> {
  const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
  const t0 = performance.now();
  const status = await untilPaused(service, key, created.body.jobId);
  if (status !== 'paused_payment') throw new Error(`job ended ${status}`);
  const ms = performance.now() - t0;
  await service.services.executor.holds.get(created.body.jobId)?.cancel();
  return ms;
}

/** RSS and PSS (kB) of every process descending from this one (the browser tree). */
function browserTree(): { rssKb: number; pssKb: number; processes: number } {
  const parent = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const mine = new Set<number>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent) {
      if (!mine.has(pid) && (ppid === process.pid || mine.has(ppid))) {
        mine.add(pid);
        grew = true;
      }
    }
  }
  let rssKb = 0;
  let pssKb = 0;
  for (const pid of mine) {
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      rssKb += Number(/^Rss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
      pssKb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // exited meanwhile
    }
  }
  return { rssKb, pssKb, processes: mine.size };
}

const mb = (kb: number) => (kb / 1024).toFixed(1);

async function latency(): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: '1' }, { sandbox: true });
  try {
    const key = await service.mintKey();
    await timedBooking(service, key, requests.restaurant({ restaurant_name: 'Warm-up' }));
    console.log(`time from job creation to paused_payment (${RUNS} runs each, one worker, ${DATABASE.split(':')[0]}):`);
    for (const scenario of ['restaurant', 'hotel', 'flight', 'activity'] as const) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await timedBooking(service, key, requests[scenario]()));
      console.log(`  ${scenario.padEnd(10)} p50 ${(percentile(times, 50) / 1000).toFixed(2)} s   p90 ${(percentile(times, 90) / 1000).toFixed(2)} s   min ${(Math.min(...times) / 1000).toFixed(2)} s`);
    }
  } finally {
    await service.close();
  }
}

async function concurrency(): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: String(CONCURRENT) }, { sandbox: true });
  try {
    const key = await service.mintKey();
    await timedBooking(service, key, requests.restaurant({ restaurant_name: 'Warm-up' }));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = browserTree();
    let peak = idle;
    const sampler = setInterval(() => {
      const now = browserTree();
      if (now.rssKb > peak.rssKb) peak = now;
    }, 100);
    const t0 = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: requests.restaurant({ restaurant_name: `Concurrent ${i}` }) });
        return untilPaused(service, key, created.body.jobId);
      }),
    );
    const wall = performance.now() - t0;
    const held = browserTree();
    if (held.rssKb > peak.rssKb) peak = held;
    clearInterval(sampler);
    const paused = statuses.filter((s) => s === 'paused_payment').length;
    console.log(`${CONCURRENT} concurrent restaurant bookings on one worker (WORKERS=${CONCURRENT}):`);
    console.log(`  paused_payment: ${paused}/${CONCURRENT}, wall time ${(wall / 1000).toFixed(2)} s`);
    console.log(`  browser tree idle:  RSS ${mb(idle.rssKb)} MB, PSS ${mb(idle.pssKb)} MB (${idle.processes} processes)`);
    console.log(`  browser tree peak:  RSS ${mb(peak.rssKb)} MB, PSS ${mb(peak.pssKb)} MB (${peak.processes} processes)`);
    console.log(`  per concurrent job: RSS ${mb((peak.rssKb - idle.rssKb) / CONCURRENT)} MB, PSS ${mb((peak.pssKb - idle.pssKb) / CONCURRENT)} MB (peak minus idle, / ${CONCURRENT}; sessions held at the payment page)`);
  } finally {
    await service.close();
  }
}

await latency();
await concurrency();
