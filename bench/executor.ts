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
// 3. The reference, in the same run and the same Chromium build: the physical floor (bench/lib/
//    executor-floor.ts), a bare playwright-core walk of the same flows with no guard, database,
//    queue or audit, measured the same two ways; every figure is printed with its ratio to it. The
//    sequential walks and bookings alternate in rounds, and the floor's concurrent walks run just
//    before and just after the service's, so that both meet the same load.
import { chromium, type Browser } from 'playwright-core';
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

/** The floor: the same flows walked bare in their own Chromium and their own sandbox. */
interface Floor {
  walk(scenario: FloorScenario, variant?: Record<string, unknown>): ReturnType<typeof floorWalk>;
  close(): Promise<void>;
}

async function startFloor(): Promise<Floor> {
  const sandbox = await startSandbox();
  const browser: Browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true });
  const newContext = () => browser.newContext();
  return {
    walk: (scenario, variant = {}) => {
      const body = requests[scenario](variant) as { request: { params: any }; profile: any };
      return floorWalk(newContext, scenario, sandbox.origin(FLOOR_PROVIDER[scenario] as any), body.request.params, body.profile);
    },
    close: async () => {
      await browser.close();
      await sandbox.close();
    },
  };
}

/** Each target, met or missed, for the summary at the end. */
const verdicts: string[] = [];
const verdict = (what: string, met: boolean, figures: string) => verdicts.push(`  ${what}: ${met ? 'met' : 'MISSED'} (${figures})`);
const summary = (times: number[]) => `p50 ${seconds(percentile(times, 50))}   p90 ${seconds(percentile(times, 90))}   min ${seconds(Math.min(...times))}`;

/** Sequential bookings and floor walks in interleaved rounds (every scenario once per round, the floor then the service): both see the same load. */
async function latency(floor: Floor): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: '1' }, { sandbox: true });
  try {
    const key = await service.mintKey();
    // One untimed booking and walk per scenario first: the browsers, the sites and the code paths are warm.
    for (const scenario of SCENARIOS) {
      await (await floor.walk(scenario)).context.close();
      await timedBooking(service, key, requests[scenario]({}));
    }
    const floorTimes = Object.fromEntries(SCENARIOS.map((s) => [s, [] as number[]])) as Record<FloorScenario, number[]>;
    const serviceTimes = Object.fromEntries(SCENARIOS.map((s) => [s, [] as number[]])) as Record<FloorScenario, number[]>;
    for (let round = 0; round < RUNS; round++) {
      for (const scenario of SCENARIOS) {
        const { context, ms } = await floor.walk(scenario);
        floorTimes[scenario].push(ms);
        await context.close();
        serviceTimes[scenario].push(await timedBooking(service, key, requests[scenario]()));
      }
    }
    console.log(`floor: a bare playwright-core walk to the payment page (same Chromium build, no guard, database, queue or audit), ${RUNS} interleaved rounds; load average ${load()}:`);
    for (const scenario of SCENARIOS) console.log(`  ${scenario.padEnd(10)} ${summary(floorTimes[scenario])}`);
    console.log(`time from job creation to paused_payment in the same rounds (one worker, ${DATABASE.split(':')[0]}); target p50 ≤ 1.5× the floor:`);
    const ratios = SCENARIOS.map((scenario) => {
      const p50 = percentile(serviceTimes[scenario], 50);
      const reference = percentile(floorTimes[scenario], 50);
      console.log(`  ${scenario.padEnd(10)} ${summary(serviceTimes[scenario])} = ${ratio(p50, reference)} the floor (${seconds(reference)})`);
      return p50 / reference;
    });
    verdict('p50 ≤ 1.5× the floor in every scenario', ratios.every((r) => r <= 1.5), `${SCENARIOS.map((s, i) => `${s} ${ratios[i]!.toFixed(2)}×`).join(', ')}`);
  } finally {
    await service.close();
  }
}

/** Peak RSS and PSS of the browser tree while `work` runs, sampled every 100 ms, with the idle tree before it. */
async function peakDuring<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; idle: ReturnType<typeof browserTree>; peak: ReturnType<typeof browserTree> }> {
  await new Promise((r) => setTimeout(r, 1000));
  const idle = browserTree();
  // RSS and PSS peak at different moments (shared pages move between them as processes come and go):
  // each is its own maximum, not the other's value at the RSS peak.
  const peak = { ...idle };
  const observe = (now: ReturnType<typeof browserTree>) => {
    peak.rssKb = Math.max(peak.rssKb, now.rssKb);
    peak.pssKb = Math.max(peak.pssKb, now.pssKb);
    peak.processes = Math.max(peak.processes, now.processes);
  };
  const sampler = setInterval(() => observe(browserTree()), 100);
  const t0 = performance.now();
  const result = await work();
  const ms = performance.now() - t0;
  observe(browserTree());
  clearInterval(sampler);
  return { result, ms, idle, peak };
}

/** CONCURRENT floor walks at once, held at the payment page, then let go. */
async function floorConcurrent(floor: Floor): Promise<{ wallMs: number; pssPerJobKb: number }> {
  const run = await peakDuring(async () => (await Promise.all(Array.from({ length: CONCURRENT }, (_, i) => floor.walk('restaurant', { restaurant_name: `Concurrent ${i}` })))).map((w) => w.context));
  await Promise.all(run.result.map((c) => c.close()));
  return { wallMs: run.ms, pssPerJobKb: (run.peak.pssKb - run.idle.pssKb) / CONCURRENT };
}

/**
 * CONCURRENT bookings at once on one worker, bracketed by the floor's CONCURRENT walks just before and
 * just after (their mean is the reference): the load the service meets is the floor's too.
 */
async function concurrency(floor: Floor): Promise<void> {
  const service = await startTestService(DATABASE, { WORKERS: String(CONCURRENT) }, { sandbox: true });
  try {
    const key = await service.mintKey();
    await timedBooking(service, key, requests.restaurant({ restaurant_name: 'Warm-up' }));
    const before = await floorConcurrent(floor);
    console.log(`${CONCURRENT} concurrent restaurant bookings on one worker (WORKERS=${CONCURRENT}), load average ${load()} at the start:`);
    const { result: jobs, ms: wall, idle, peak } = await peakDuring(() => Promise.all(
      Array.from({ length: CONCURRENT }, async (_, i) => {
        const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body: requests.restaurant({ restaurant_name: `Concurrent ${i}` }) });
        return settle(service, key, created.body.jobId, 500);
      }),
    ));
    await Promise.all(jobs.map((j) => service.services.executor.holds.get(j.jobId)?.cancel()));
    const after = await floorConcurrent(floor);
    const reference = { wallMs: (before.wallMs + after.wallMs) / 2, pssPerJobKb: (before.pssPerJobKb + after.pssPerJobKb) / 2 };
    console.log(`  floor, just before and just after: ${CONCURRENT} concurrent walks, wall ${seconds(before.wallMs)} and ${seconds(after.wallMs)}, PSS per walk ${mb(before.pssPerJobKb)} and ${mb(after.pssPerJobKb)} MB`);
    const paused = jobs.filter((j) => j.status === 'paused_payment').length;
    console.log(`  paused_payment: ${paused}/${CONCURRENT}, wall time ${seconds(wall)} = ${ratio(wall, reference.wallMs)} the floor's ${seconds(reference.wallMs)} (target ≤ 2×; first creation to last pause, polled every 0.5 s)`);
    for (const job of jobs.filter((j) => j.status !== 'paused_payment')) console.log(`  not paused: ${why(job)}`);
    console.log(`  browser tree idle:  RSS ${mb(idle.rssKb)} MB, PSS ${mb(idle.pssKb)} MB (${idle.processes} processes)`);
    console.log(`  browser tree peak:  RSS ${mb(peak.rssKb)} MB, PSS ${mb(peak.pssKb)} MB (each its own peak; at most ${peak.processes} processes)`);
    const pssPerJobKb = (peak.pssKb - idle.pssKb) / CONCURRENT;
    console.log(`  per concurrent job: RSS ${mb((peak.rssKb - idle.rssKb) / CONCURRENT)} MB, PSS ${mb(pssPerJobKb)} MB = ${ratio(pssPerJobKb, reference.pssPerJobKb)} the floor's ${mb(reference.pssPerJobKb)} MB (target ≤ 40 MB; peak minus idle, / ${CONCURRENT}; sessions held at the payment page)`);
    verdict(`${CONCURRENT} concurrent: all paused, wall ≤ 2× the floor's`, paused === CONCURRENT && wall <= 2 * reference.wallMs, `${paused}/${CONCURRENT} paused, ${ratio(wall, reference.wallMs)}`);
    verdict('≤ 40 MB PSS per concurrent job', pssPerJobKb <= 40 * 1024, `${mb(pssPerJobKb)} MB, ${ratio(pssPerJobKb, reference.pssPerJobKb)} the floor's`);
  } finally {
    await service.close();
  }
}

console.log(`load average at start: ${load()} (2 cores here; figures are wall-clock)`);
const floor = await startFloor();
try {
  await latency(floor);
  await concurrency(floor);
} finally {
  await floor.close();
}
console.log(`targets:\n${verdicts.join('\n')}`);
console.log(`load average at end: ${load()}`);
