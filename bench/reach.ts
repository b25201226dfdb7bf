// Booking reach benchmark (issue 12, "Tests and benchmark"): how fast the generic driver books,
// site by site, against the scripted drivers in the same run. The real service on an ephemeral port
// with the sandbox sites, providers registered as an operator registers them (the store behind
// `concierge providers add`), jobs created over REST with an API key, as a client would.
//
//   npm run bench -- reach
//   BENCH_RUNS=9 BENCH_DATABASE_URL=postgres://… npm run bench -- reach
//   BENCH_SITES=jqueryui,tavola npm run bench -- reach   (only those sites, no variants: for trying a
//   change on a few sites; the figures the README gives come from the whole bench)
//
// Then, in the same rounds, the sites built from code nobody here wrote and the pattern sites (issue
// 25): the widget gauntlet (test/generic/fixtures/gauntlet.ts: one npm widget library per site) and
// the WAI-ARIA pattern, language and naming sites (test/generic/fixtures/patterns.ts), each
// registered `--driver generic`; the pass rate per library and per pattern is reported. Their first
// tries, before any tuning, are in docs/reach.md.
//
// And, in the same rounds, every corpus site under metamorphic variants of its markup (issue 25,
// sandbox/variants: ids and classes renamed, wrappers, fields shuffled, wording in synonyms or
// another language, prices and dates in that locale): one seed per round (BENCH_RUNS seeds, new
// ones each run unless BENCH_VARIANT_SEEDS="1,2,3" names them; CI runs one fixed seed,
// test/generic/variants.test.ts), each served by its own sandbox; the pass rate per corpus site.
//
// Per site, the time from job creation to paused_payment (the job's createdAt to its paused_payment
// event, both stamped by the service), p50/p90 of BENCH_RUNS jobs (default 5) on one warmed-up
// worker, each job allowed that one provider only:
// - the generic driver on the eight built-in sandbox sites, registered with `--driver generic`
//   (`generic-<site>`), and on the eight corpus sites (sandbox/corpus), which no driver knows;
// - the reference, in the same run: the scripted driver of each built-in site.
// - the reference of issue 25, in the same run: a bare Playwright walk of each site (bench/lib/walk.ts):
//   the generic driver's own steps, recorded once per site from a booking at the attempt level and
//   replayed by a plain script that reads and decides nothing, from a new browser context to the
//   card-code page.
// Runs are interleaved (one round = every site once: scripted, generic, walk), so that a change in
// the machine's load falls on all alike. Targets: generic p50 ≤ 2× the scripted p50 on every
// built-in site; generic p50 ≤ 1.5× the walk's p50 on every site; generic p50 < 5 s on every corpus
// site; every corpus site booked (all its runs paused at the payment page).
import { addProvider } from '../src/providers/store.ts';
import type { Scenario } from '../src/jobs/types.ts';
import { CORPUS, PROVIDERS, startSandbox, variantPlan, type Sandbox } from '../sandbox/index.ts';
import { startTestService } from '../test/helpers/service.ts';
import { requests } from '../test/executor/helpers.ts';
import { load, percentile, ratio, seconds, tryBooking } from './lib/booking.ts';
import { GAUNTLET, startGauntlet } from '../test/generic/fixtures/gauntlet.ts';
import { PATTERNS_BOOKED, startPatternSites } from '../test/generic/fixtures/patterns.ts';
import { startStay, STAY_PICKERS } from '../test/generic/fixtures/stays.ts';
import { launchBrowser } from '../test/sandbox/drivers.ts';
import { newContext } from '../test/generic/harness.ts';
import { searchRequestOf } from '../src/jobs/search-request.ts';
import { playWalk, recordWalk, type Walk } from './lib/walk.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const DATABASE = process.env.BENCH_DATABASE_URL ?? 'pglite:memory:';
const BUILT_IN_RATIO = 2;
const WALK_RATIO = 1.5;
const CORPUS_P50_MS = 5000;
const ONLY = process.env.BENCH_SITES ? new Set(process.env.BENCH_SITES.split(',')) : null;
const VARIANT_SEEDS = ONLY ? [] : process.env.BENCH_VARIANT_SEEDS
  ? process.env.BENCH_VARIANT_SEEDS.split(',').map(Number)
  : Array.from({ length: RUNS }, () => Math.floor(Math.random() * 2 ** 31));

interface Measured {
  /** The provider id a job is allowed to use. */
  provider: string;
  times: number[];
  failures: string[];
}

interface Site {
  site: string;
  scenario: Scenario;
  kind: 'built-in' | 'corpus' | 'gauntlet' | 'pattern';
  /** For gauntlet and pattern sites: the venue asked for, and what the site is made of. */
  venue?: string;
  what?: string;
  generic: Measured;
  scripted?: Measured;
  /** The bare Playwright walk of the site (recorded before the rounds), and its times. */
  walk?: Walk;
  walked: Measured;
}

const measured = (provider: string): Measured => ({ provider, times: [], failures: [] });
const walked = (): Measured => measured('walk');
const p50 = (m: Measured) => (m.times.length ? percentile(m.times, 50) : NaN);
const p90 = (m: Measured) => (m.times.length ? percentile(m.times, 90) : NaN);
const cell = (m: Measured | undefined) => (!m ? '—' : m.times.length ? `${seconds(p50(m))} / ${seconds(p90(m))}` : 'none paused');

console.log(`load average at start: ${load()} (2 cores here; figures are wall-clock)`);
const service = await startTestService(DATABASE, { WORKERS: '1' }, { sandbox: true });
const [gauntlet, patterns, ...variantSandboxes] = await Promise.all([startGauntlet(), startPatternSites(), ...VARIANT_SEEDS.map((seed) => startSandbox({ variant: { seed } }))]) as [Awaited<ReturnType<typeof startGauntlet>>, Awaited<ReturnType<typeof startPatternSites>>, ...Sandbox[]];
// The hotel range pickers (one site each): gauntlet sites too, with a hotel's stay.
const stays = new Map(await Promise.all(Object.keys(STAY_PICKERS).map(async (id) => [id, await startStay(id)] as const)));
const walker = await launchBrowser();
try {
  const key = await service.mintKey();
  const sandbox = service.sandbox!;
  const sites: Site[] = [
    ...PROVIDERS.map((p) => ({ site: p.id, scenario: p.scenario, kind: 'built-in' as const, generic: measured(`generic-${p.id}`), scripted: measured(p.id), walked: walked() })),
    ...CORPUS.map((c) => ({ site: c.id, scenario: c.scenario, kind: 'corpus' as const, generic: measured(c.id), walked: walked() })),
    ...Object.entries(GAUNTLET).map(([id, g]) => ({ site: id, scenario: 'restaurant' as const, kind: 'gauntlet' as const, generic: measured(`gauntlet-${id}`), venue: g.venue, what: `${g.library}: ${g.widget}`, walked: walked() })),
    ...PATTERNS_BOOKED.map(({ site, venue, what }) => ({ site, scenario: 'restaurant' as const, kind: 'pattern' as const, generic: measured(`pattern-${site}`), venue, what, walked: walked() })),
    ...Object.entries(STAY_PICKERS).map(([id, g]) => ({ site: id, scenario: 'hotel' as const, kind: 'gauntlet' as const, generic: measured(`stay-${id}`), venue: 'Casa Azul', what: `${g.library}: ${g.widget}`, walked: walked() })),
  ].filter((s) => !ONLY || ONLY.has(s.site));
  if (ONLY && sites.length < ONLY.size) throw new Error(`BENCH_SITES names sites the bench does not have: ${[...ONLY].filter((id) => !sites.some((s) => s.site === id)).join(', ')}`);
  const paramsOf = (s: Site) => (!s.venue ? {}
    : s.scenario === 'hotel' ? { hotel_name: s.venue, city: 'Porto', checkin: '2030-06-10', checkout: '2030-06-12', adults: 2 }
    : { restaurant_name: s.venue, city: 'Porto', date: '2030-06-10', time: '19:30', covers: 3 });
  const walkContext = await newContext(walker);
  for (const s of sites) {
    const startUrl = s.kind === 'built-in' ? `${sandbox.origin(s.site as any)}/`
      : s.kind === 'gauntlet' ? (stays.get(s.site)?.url ?? gauntlet.url(s.site)) : s.kind === 'pattern' ? patterns.url(s.site)
      : `${sandbox.origin(s.site as any)}${CORPUS.find((c) => c.id === s.site)!.startPath}`;
    await addProvider(service.services.db, { id: s.generic.provider, name: `Bench ${s.site}`, scenario: s.scenario, startUrl, driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
    const { request } = requests[s.scenario](paramsOf(s)) as { request: { params: Record<string, unknown> } };
    s.walk = await recordWalk(walkContext, { id: s.generic.provider, name: `Bench ${s.site}`, scenario: s.scenario, startUrl }, searchRequestOf(s.scenario, request.params))
      .catch((error: Error) => (s.walked.failures.push(`not recorded: ${error.message}`), undefined));
  }
  await walkContext.close();

  // The corpus under variants: per seed and site, its own provider on that seed's sandbox.
  const variants = VARIANT_SEEDS.map((seed, i) => ({
    seed,
    sites: CORPUS.map((c): Site => ({ site: c.id, scenario: c.scenario, kind: 'corpus', generic: measured(`variant${i}-${c.id}`), what: variantPlan({ seed }, c.id).language, walked: walked() })),
  }));
  for (const [i, v] of variants.entries()) {
    for (const s of v.sites) {
      const startUrl = `${variantSandboxes[i]!.origin(s.site as any)}${CORPUS.find((c) => c.id === s.site)!.startPath}`;
      await addProvider(service.services.db, { id: s.generic.provider, name: `Bench ${s.site}`, scenario: s.scenario, startUrl, driver: 'generic', mode: 'test', priority: 500 }, { allowPrivate: true });
    }
  }

  const book = async (s: Site, m: Measured, record: boolean) => {
    const result = await tryBooking(service, key, requests[s.scenario](paramsOf(s), { allowedProviders: [m.provider] }));
    if (!record) return;
    if ('ms' in result) m.times.push(result.ms);
    else m.failures.push(result.failed);
  };
  const walk = async (s: Site, record: boolean) => {
    if (!s.walk) return;
    const result = await playWalk(walker, s.walk).then((ms) => ({ ms }), (error: Error) => ({ failed: error.message.split('\n')[0]! }));
    if (!record) return;
    if ('ms' in result) s.walked.times.push(result.ms);
    else s.walked.failures.push(result.failed);
  };

  // One untimed booking per site and driver first: the browser, the sites and the code paths are warm.
  for (const s of sites) {
    if (s.scripted) await book(s, s.scripted, false);
    await book(s, s.generic, false);
    await walk(s, false);
  }
  console.log(`warm; load average ${load()}. ${RUNS} rounds (every site once per round: scripted, generic, walk), one worker, ${DATABASE.split(':')[0]}:`);
  for (let round = 0; round < RUNS; round++) {
    for (const s of sites) {
      if (s.scripted) await book(s, s.scripted, true);
      await book(s, s.generic, true);
      await walk(s, true);
      // The same corpus site under this round's variant(s), straight after it.
      if (s.kind === 'corpus') for (const v of variants.filter((_, i) => i % RUNS === round)) await book(s, v.sites.find((x) => x.site === s.site)!.generic, true);
    }
    console.log(`  round ${round + 1}/${RUNS} done, load average ${load()}`);
  }

  console.log(`\ncreation → paused_payment, p50 / p90 of ${RUNS} runs (a run that did not pause is not timed; see "booked"):`);
  console.log(`  ${'site'.padEnd(16)} ${'scenario'.padEnd(10)} ${'kind'.padEnd(8)} ${'scripted p50 / p90'.padEnd(19)} ${'generic p50 / p90'.padEnd(19)} ${'walk p50 / p90'.padEnd(19)} ${'gen/scripted'.padEnd(12)} ${'gen/walk'.padEnd(9)} booked (generic)`);
  const over = (m: Measured, ref: Measured | undefined) => (ref && ref.times.length && m.times.length ? ratio(p50(m), p50(ref)) : '—');
  for (const s of sites) {
    console.log(`  ${s.site.padEnd(16)} ${s.scenario.padEnd(10)} ${s.kind.padEnd(8)} ${cell(s.scripted).padEnd(19)} ${cell(s.generic).padEnd(19)} ${cell(s.walked).padEnd(19)} ${over(s.generic, s.scripted).padEnd(12)} ${over(s.generic, s.walked).padEnd(9)} ${s.generic.times.length}/${RUNS}`);
  }
  for (const s of sites) {
    for (const [driver, m] of [['scripted', s.scripted], ['generic', s.generic], ['walk', s.walked]] as const) {
      for (const f of new Set(m?.failures ?? [])) console.log(`  not paused: ${s.site} (${driver}, ${m!.failures.filter((x) => x === f).length}×): ${f}`);
    }
  }

  const outside = sites.filter((s) => s.kind === 'gauntlet' || s.kind === 'pattern');
  console.log(`\ncode nobody here wrote (gauntlet: one npm library per site) and pattern sites, generic driver, ${RUNS} runs each:`);
  for (const s of outside) console.log(`  ${s.kind.padEnd(9)} ${s.site.padEnd(16)} booked ${s.generic.times.length}/${RUNS}  p50 ${s.generic.times.length ? seconds(p50(s.generic)) : '—'}  ${s.what}`);
  const rate = (kind: Site['kind']) => {
    const of = outside.filter((s) => s.kind === kind);
    return `${of.filter((s) => s.generic.times.length === RUNS).length}/${of.length} sites booked on every run`;
  };
  console.log(`  pass rate: gauntlet ${rate('gauntlet')}; patterns ${rate('pattern')} (first tries, before tuning: docs/reach.md)`);

  console.log(`\ncorpus sites under metamorphic variants (seeds ${VARIANT_SEEDS.join(', ')}; replay with BENCH_VARIANT_SEEDS), generic driver, one booking per seed:`);
  for (const c of CORPUS) {
    const runs = variants.map((v) => ({ seed: v.seed, s: v.sites.find((x) => x.site === c.id)! }));
    const booked = runs.filter((r) => r.s.generic.times.length > 0);
    console.log(`  ${c.id.padEnd(10)} booked ${booked.length}/${runs.length}  (${runs.map((r) => `${r.seed}: ${r.s.what}${r.s.generic.times.length ? '' : ' ✗'}`).join(', ')})`);
    for (const r of runs) for (const f of r.s.generic.failures) console.log(`    not paused, seed ${r.seed} (${r.s.what}): ${f}`);
  }
  const variantRuns = variants.flatMap((v) => v.sites);
  console.log(`  pass rate: ${variantRuns.filter((s) => s.generic.times.length > 0).length}/${variantRuns.length} variant bookings paused at payment (first tries, before tuning: docs/reach.md)`);

  const builtIn = sites.filter((s) => s.kind === 'built-in');
  const corpus = sites.filter((s) => s.kind === 'corpus');
  const ratios = builtIn.map((s) => p50(s.generic) / p50(s.scripted!));
  const slowBuiltIn = builtIn.filter((s, i) => !(ratios[i]! <= BUILT_IN_RATIO));
  const slowCorpus = corpus.filter((s) => !(p50(s.generic) < CORPUS_P50_MS));
  const booked = corpus.filter((s) => s.generic.failures.length === 0 && s.generic.times.length === RUNS);
  const finite = ratios.filter(Number.isFinite);
  const walkRatios = sites.map((s) => p50(s.generic) / p50(s.walked));
  const slowWalk = sites.filter((_, i) => !(walkRatios[i]! <= WALK_RATIO));
  const walkFinite = walkRatios.filter(Number.isFinite);
  console.log(`\ntargets:`);
  console.log(`  generic p50 ≤ ${WALK_RATIO}× the bare walk's p50 on every site: ${slowWalk.length ? `MISSED on ${slowWalk.length}/${sites.length} (${slowWalk.map((s) => s.site).join(', ')})` : 'met'} (ratios ${walkFinite.length ? `${Math.min(...walkFinite).toFixed(2)}–${Math.max(...walkFinite).toFixed(2)}×, median ${percentile(walkFinite, 50).toFixed(2)}×` : 'none'})`);
  console.log(`  generic p50 ≤ ${BUILT_IN_RATIO}× scripted p50 on every built-in site: ${slowBuiltIn.length ? `MISSED on ${slowBuiltIn.map((s) => s.site).join(', ')}` : 'met'} (ratios ${finite.length ? `${Math.min(...finite).toFixed(2)}–${Math.max(...finite).toFixed(2)}×, median ${percentile(finite, 50).toFixed(2)}×` : 'none'})`);
  console.log(`  generic p50 < ${seconds(CORPUS_P50_MS)} on every corpus site: ${slowCorpus.length ? `MISSED on ${slowCorpus.map((s) => s.site).join(', ')}` : 'met'} (slowest ${seconds(Math.max(...corpus.map((s) => p50(s.generic))))})`);
  console.log(`  100 % of corpus sites booked: ${booked.length === corpus.length ? 'met' : 'MISSED'} (${booked.length}/${corpus.length} sites paused at payment on every run)`);
} finally {
  await walker.close();
  await service.close();
  await Promise.all([gauntlet.close(), patterns.close(), ...[...stays.values()].map((x) => x.close()), ...variantSandboxes.map((v) => v.close())]);
}
console.log(`load average at end: ${load()}`);
