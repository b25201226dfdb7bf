// Executor benchmark: the real service on an ephemeral port with the sandbox provider sites, jobs
// created over REST with an API key, exactly as a client would.
//
//   node --disable-warning=ExperimentalWarning bench/executor.ts
//   BENCH_RUNS=7 BENCH_CONCURRENT=20 BENCH_DATABASE_URL=postgres://… node … bench/executor.ts
//
// 1. Time from job creation to paused_payment (the job's createdAt to its paused_payment event, both
//    stamped by the service), p50/p90 of BENCH_RUNS sequential jobs, for a restaurant, hotel, flight
//    and activity booking, on one warmed-up worker.
// 2. BENCH_CONCURRENT restaurant bookings at once on one worker process (WORKERS = that number):
//    wall time, peak memory of the whole browser process tree (sum of RSS, and of PSS, of every
//    process descending from this one other than itself: Chromium's browser, GPU, network and
//    renderer processes), and memory per concurrent job (peak minus the idle browser, divided by
//    the number of jobs; the held sessions stay open at the payment page, so this includes them).
// 3. The reference, in the same run and the same Chromium: the physical floor (bench/lib/
//    executor-floor.ts), a bare playwright-core walk of the same flows with no guard, database,
//    queue or audit, measured the same two ways; every figure is printed with its ratio to it.
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { CHROMIUM_ARGS } from '../src/browser/pool.ts';
import { startSandbox } from '../sandbox/index.ts';
import { FLOOR_PROVIDER, floorWalk, type FloorScenario } from './lib/executor-floor.ts';
import { call } from '../test/helpers/http.ts';
import { startTestService } from '../test/helpers/service.ts';
import { requests } from '../test/executor/helpers.ts';
import { load, percentile, ratio, seconds, settle, timedBooking, why } from './lib/booking.ts';
import { mb, treeUsage } from './lib/process-tree.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const SCENARIOS = ['restaurant', 'hotel', 'flight', 'activity'] as const;
const CONCURRENT = Number(process.env.BENCH_CONCURRENT ?? 20);
const DATABASE = process.env.BENCH_DATABASE_URL ?? 'pglite:memory:';

/** RSS and PSS (kB) of every process descending from this one (the browser tree). */
const browserTree = () => treeUsage(process.pid, { includeRoot: false });

/** What the floor measured, for the ratios. */
interface Floor {
  p50: Record<FloorScenario, number>;
  concurrentWallMs: number;
  pssPerJobKb: number;
}

/** The floor: the same flows walked bare in the same Chromium, sequentially and then CONCURRENT at once. */
async function floor(): Promise<Floor> {
  const sandbox = await startSandbox();
  const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const newContext = () => browser.newContext();
  const walk = (scenario: FloorScenario, variant: Record<string, unknown> = {}) => {
    const body = requests[scenario](variant) as { request: { params: any }; profile: any };
    return floorWalk(newContext, scenario, sandbox.origin(FLOOR_PROVIDER[scenario] as any), body.request.params, body.profile);
  };
  try {
    for (const scenario of SCENARIOS) await (await walk(scenario)).context.close();
    const p50 = {} as Record<FloorScenario, number>;
    console.log(`floor: a bare playwright-core walk to the payment page (${RUNS} runs each, same Chromium, no guard, database, queue or audit; load average ${load()}):`);
    for (const scenario of SCENARIOS) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const { context, ms } = await walk(scenario);
        times.push(ms);
        await context.close();
      }
      p50[scenario] = percentile(times, 50);
      console.log(`  ${scenario.padEnd(10)} p50 ${seconds(p50[scenario])}   p90 ${seconds(percentile(times, 90))}   min ${seconds(Math.min(...times))}`);
    }
    await new Promise((r) => setTimeout(r, 1000));
    const idle = browserTree();
    const peak = { ...idle };
    const sampler = setInterval(() => {
      const now = browserTree();
      peak.rssKb = Math.max(peak.rssKb, now.rssKb);
      peak.pssKb = Math.max(peak.pssKb, now.pssKb);
    }, 100);
    const t0 = performance.now();
    const held: BrowserContext[] = (await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => walk('restaurant', { restaurant_name: `Concurrent ${i}` })))).map((w) => w.context);
    const concurrentWallMs = performance.now() - t0;
    clearInterval(sampler);
    const pssPerJobKb = (peak.pssKb - idle.pssKb) / CONCURRENT;
    console.log(`floor: ${CONCURRENT} concurrent restaurant walks: wall ${seconds(concurrentWallMs)}, PSS per walk ${mb(pssPerJobKb)} MB (contexts held at the payment page)`);
    await Promise.all(held.map((c) => c.close()));
    return { p50, concurrentWallMs, pssPerJobKb };
  } finally {
    await browser.close();
    await sandbox.close();
  }
}

/** Each target, met or missed, for the summary at the end. */
const verdicts: string[] = [];
const verdict = (what: string, met: boolean, figures: string) => verdicts.push(`  ${what}: ${met ? 'met' : 'MISSED'} (${figures})`);

async function latency(reference: Floor): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: '1' }, { sandbox: true });
  try {
    const key = await service.mintKey();
    // One untimed booking per scenario first: the browser, the sites and the code paths are warm.
    for (const scenario of SCENARIOS) await timedBooking(service, key, requests[scenario]({}));
    console.log(`time from job creation to paused_payment (${RUNS} runs each, one worker, ${DATABASE.split(':')[0]}; load average ${load()}); target p50 ≤ 1.5× the floor:`);
    const ratios: number[] = [];
    for (const scenario of SCENARIOS) {
      const times: number[] = [];
      for (let i = 0; i < RUNS; i++) times.push(await timedBooking(service, key, requests[scenario]()));
      const p50 = percentile(times, 50);
      console.log(`  ${scenario.padEnd(10)} p50 ${seconds(p50)} = ${ratio(p50, reference.p50[scenario])} the floor (${seconds(reference.p50[scenario])})   p90 ${seconds(percentile(times, 90))}   min ${seconds(Math.min(...times))}`);
      ratios.push(p50 / reference.p50[scenario]);
    }
    verdict('p50 ≤ 1.5× the floor in every scenario', ratios.every((r) => r <= 1.5), `${SCENARIOS.map((s, i) => `${s} ${ratios[i]!.toFixed(2)}×`).join(', ')}`);
  } finally {
    await service.close();
  }
}

async function concurrency(reference: Floor): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: String(CONCURRENT) }, { sandbox: true });
  try {
    const key = await service.mintKey();
    await timedBooking(service, key, requests.restaurant({ restaurant_name: 'Warm-up' }));
    await new Promise((r) => setTimeout(r, 1000));
    const idle = browserTree();
    // RSS and PSS peak at different moments (shared pages move between them as processes come and go):
    // each is its own maximum, not the other's value at the RSS peak.
    const peak = { rssKb: idle.rssKb, pssKb: idle.pssKb, processes: idle.processes };
    const observe = (now: ReturnType<typeof browserTree>) => {
      peak.rssKb = Math.max(peak.rssKb, now.rssKb);
      peak.pssKb = Math.max(peak.pssKb, now.pssKb);
      peak.processes = Math.max(peak.processes, now.processes);
    };
    const sampler = setInterval(() => observe(browserTree()), 100);
    console.log(`${CONCURRENT} concurrent restaurant bookings on one worker (WORKERS=${CONCURRENT}), load average ${load()} at the start:`);
    const t0 = performance.now();
    const jobs = await Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: requests.restaurant({ restaurant_name: `Concurrent ${i}` }) });
        return settle(service, key, created.body.jobId, 500);
      }),
    );
    const wall = performance.now() - t0;
    const statuses = jobs.map((j) => j.status);
    observe(browserTree());
    clearInterval(sampler);
    const paused = statuses.filter((s) => s === 'paused_payment').length;
    console.log(`  paused_payment: ${paused}/${CONCURRENT}, wall time ${seconds(wall)} = ${ratio(wall, reference.concurrentWallMs)} the floor's ${seconds(reference.concurrentWallMs)} (target ≤ 2×; first creation to last pause, polled every 0.5 s)`);
    for (const job of jobs.filter((j) => j.status !== 'paused_payment')) console.log(`  not paused: ${why(job)}`);
    console.log(`  browser tree idle:  RSS ${mb(idle.rssKb)} MB, PSS ${mb(idle.pssKb)} MB (${idle.processes} processes)`);
    console.log(`  browser tree peak:  RSS ${mb(peak.rssKb)} MB, PSS ${mb(peak.pssKb)} MB (each its own peak; at most ${peak.processes} processes)`);
    const pssPerJobKb = (peak.pssKb - idle.pssKb) / CONCURRENT;
    console.log(`  per concurrent job: RSS ${mb((peak.rssKb - idle.rssKb) / CONCURRENT)} MB, PSS ${mb(pssPerJobKb)} MB = ${ratio(pssPerJobKb, reference.pssPerJobKb)} the floor's ${mb(reference.pssPerJobKb)} MB (target ≤ 40 MB; peak minus idle, / ${CONCURRENT}; sessions held at the payment page)`);
    verdict(`${CONCURRENT} concurrent: all paused, wall ≤ 2× the floor's`, paused === CONCURRENT && wall <= 2 * reference.concurrentWallMs, `${paused}/${CONCURRENT} paused, ${ratio(wall, reference.concurrentWallMs)}`);
    verdict('≤ 40 MB PSS per concurrent job', pssPerJobKb <= 40 * 1024, `${mb(pssPerJobKb)} MB, ${ratio(pssPerJobKb, reference.pssPerJobKb)} the floor's`);
  } finally {
    await service.close();
  }
}

console.log(`load average at start: ${load()} (2 cores here; figures are wall-clock)`);
const reference = await floor();
await latency(reference);
await concurrency(reference);
console.log(`targets:\n${verdicts.join('\n')}`);
console.log(`load average at end: ${load()}`);
