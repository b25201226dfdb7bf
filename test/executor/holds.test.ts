import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { call } from '../helpers/http.ts';
import { BACKENDS, BROWSER_BACKEND, startTestService, type TestService } from '../helpers/service.ts';
import { until } from '../helpers/wait.ts';
import { findJobByHandoffToken, handoffOpen } from '../../src/jobs/handoff-tokens.ts';
import { HEARTBEAT_MS } from '../../src/executor/hold-timings.ts';
import { HoldRegistry } from '../../src/executor/holds.ts';
import { executorSessions } from '../../src/executor/browser-sessions.ts';
import { cancelHandoff } from '../../src/handoff/handoff.ts';
import { createLogger } from '../../src/observability/logger.ts';
import { PROVIDERS, type ProviderId, type Scenario } from '../../sandbox/index.ts';
import { auditOf, outcomes, requests, runJob, waitForJob } from './helpers.ts';

/** What each provider's payment page shows, and the confirmation code it issues (sandbox/README.md). */
const SITE: Record<ProviderId, { currency: string; cardOnFile: string; confirmationCode: RegExp }> = {
  tablebook: { currency: '€', cardOnFile: 'Visa •••• 4242', confirmationCode: /^TB-[A-HJ-NP-Z2-9]{6}$/ },
  dinenow: { currency: '£', cardOnFile: 'VISA ending in 4242', confirmationCode: /^DN-\d{8}$/ },
  staysearch: { currency: '$', cardOnFile: 'Mastercard •••• 5454', confirmationCode: /^SS-\d{10}$/ },
  roomly: { currency: '€', cardOnFile: 'Visa ending 1111', confirmationCode: /^RMY-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/ },
  skyfare: { currency: '$', cardOnFile: 'Visa •••• 4242', confirmationCode: /^[A-HJ-NP-Z2-9]{6}$/ },
  jetdeck: { currency: '€', cardOnFile: 'American Express ending 1005', confirmationCode: /^JD-[A-HJ-NP-Z2-9]{6}$/ },
  tixhub: { currency: '$', cardOnFile: 'Mastercard ending in 5100', confirmationCode: /^TXH-\d{4}-\d{4}$/ },
  eventgo: { currency: '£', cardOnFile: 'Visa •••• 4242', confirmationCode: /^EG[A-HJ-NP-Z2-9]{8}$/ },
};

/** Per scenario: the venue-like field, and what the structured `held` must say of the date, time and count. */
const ASKED: Record<Scenario, { venue: string; held(params: Record<string, any>): Record<string, unknown>; page: string[] }> = {
  restaurant: { venue: 'restaurant_name', held: (p) => ({ date: p.date, time: p.time, partySize: 2 }), page: ['Restaurant', 'Date', 'Time', 'Party'] },
  hotel: { venue: 'hotel_name', held: (p) => ({ date: p.checkin, checkOut: p.checkout, rooms: 1, guests: 2 }), page: ['Hotel', 'Check-in', 'Check-out', 'Rooms and guests', 'Room'] },
  flight: { venue: 'targetAirline', held: (p) => ({ date: p.date, time: p.targetDepartureTime, departure: p.targetDepartureTime, passengers: 1 }), page: ['Flight', 'Date', 'Departure', 'Arrival', 'Passengers', 'Cabin'] },
  activity: { venue: 'event_name', held: (p) => ({ date: p.event_date, tickets: 2 }), page: ['Event', 'Date', 'Time', 'Tickets', 'Seats'] },
};

/** The held booking's lines on a page (`<dt>label</dt><dd>value</dd>`), unescaped. */
function heldLines(html: string): Map<string, string> {
  const unescape = (t: string) => t.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
  return new Map([...html.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [unescape(m[1]!), unescape(m[2]!)]));
}

const dayMonthYear = (iso: string) => new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

// The held session at paused_payment: it waits on the provider's payment page, blocks automation
// from typing the card code, hands the tab to the person, detects the provider's confirmation, and
// ends by itself when the hold runs out, when the person cancels, or when its process is gone.

for (const backend of BACKENDS) {
  describe(`held sessions on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '4' }, { sandbox: true });
      key = await service.mintKey();
    });
    after(() => service.close());

    test('the person pays on the held page: automation could not type the code, the person can; the confirmation page completes the job with the site\'s code', async () => {
      const { job } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Alchemist' }));
      assert.equal(job.status, 'paused_payment');
      const held = service.services.executor.holds.get(job.jobId)!;
      assert.ok(held, 'held in this process');
      // The handoff finds the job from the token in its URL (only the token's hash is stored).
      const token = job.handoffUrl.split('/').pop();
      const found = await findJobByHandoffToken(service.services.db, token);
      assert.equal(found?.jobId, job.jobId);
      assert.equal(handoffOpen(found!), true);
      assert.equal(await findJobByHandoffToken(service.services.db, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`), null);

      // While automation is in control the code field takes nothing, and the block is audited.
      await held.page.keyboard.type('987');
      assert.equal(await held.page.inputValue('#tb-cvc'), '');
      // The report travels page → binding → recorder → database: asked until it arrives.
      let blocked: any[] = [];
      await until('the in-page layer reported the typing', async () => (blocked = (await auditOf(service, key, job.jobId)).filter((e) => e.type === 'action_denied' && e.layer === 'page')).length > 0, 10_000, 100);
      assert.match(blocked[0].message, /in-page layer.*'cvc'/);
      assert.ok(!blocked.some((e) => /987/.test(e.message)), 'no value in any event');

      // The person takes over (the handoff relays their keys): the code goes in, Enter pays.
      await held.setUserInControl(true);
      assert.equal(held.isUserInControl(), true);
      await held.page.focus('#tb-cvc');
      await held.page.keyboard.type('123');
      assert.equal(await held.page.inputValue('#tb-cvc'), '123');
      const ended = held.done;
      await held.page.keyboard.press('Enter');
      const end = await ended;
      assert.equal(end.kind, 'completed');

      const done = await waitForJob(service, key, job.jobId, { until: ['completed', 'error'] });
      assert.equal(done.status, 'completed');
      const confirmation = service.sandbox!.confirmations().find((c) => c.code === done.confirmationCode);
      assert.ok(confirmation?.paidWithCard, 'the code is the one the provider issued for a card payment');
      assert.deepEqual(end, { kind: 'completed', confirmationCode: done.confirmationCode });
      assert.equal(done.handoffUrl, job.handoffUrl, 'the link stays on the job: it shows the receipt now');
      assert.match(done.summary, /^Booked and paid at TableBook: .*Confirmation/);
      const events = await auditOf(service, key, job.jobId);
      assert.equal(events.at(-1).type, 'job_completed');
      assert.equal(events.at(-1).confirmationCode, done.confirmationCode);
      assert.deepEqual(outcomes(events), [['tablebook', 'accepted']], 'one attempt, one outcome');
      assert.equal(service.services.executor.holds.get(job.jobId), undefined);
      // The only card code the provider ever saw is the one the person typed.
      assert.deepEqual(service.sandbox!.cardCodesReceived().map((r) => r.field), ['cvc']);
    });

    // Eight Chromium bookings whose rows take the paths the other tests here take on every backend:
    // they run on BROWSER_BACKEND alone.
    if (backend === BROWSER_BACKEND) test('on every provider: the pause records what is held as data, the handoff page shows it, and the code typed into the focused field with Enter pays', async () => {
      const codesBefore = service.sandbox!.cardCodesReceived().length;
      // One job per provider, all at once.
      const runs = await Promise.all(PROVIDERS.map(async (provider) => {
        const asked = ASKED[provider.scenario];
        const name = provider.scenario === 'flight' ? 'Northwind Airways' : `Harbour House ${provider.id}`;
        const body = requests[provider.scenario]({ [asked.venue]: name }, { allowedProviders: [provider.id] }) as { request: { params: Record<string, any> } };
        return { provider, name, params: body.request.params, ...(await runJob(service, key, body, { intervalMs: 300 })) };
      }));
      await Promise.all(runs.map(async ({ provider, name, params, job, events }) => {
        const id = provider.id;
        assert.equal(job.status, 'paused_payment', `${id}: ${job.summary}`);
        const paused = events.at(-1);
        assert.equal(paused.type, 'paused_payment');
        const held = paused.held;
        assert.ok(held && typeof held === 'object', `${id}: the paused_payment event carries held`);
        assert.deepEqual(
          { provider: held.provider, providerName: held.providerName, cardOnFile: held.cardOnFile, timeAdjusted: held.timeAdjusted, venueSwitched: held.venueSwitched, ...Object.fromEntries(Object.keys(ASKED[provider.scenario].held(params)).map((k) => [k, held[k]])) },
          { provider: id, providerName: provider.name, cardOnFile: SITE[id].cardOnFile, timeAdjusted: null, venueSwitched: null, ...ASKED[provider.scenario].held(params) },
          `${id}: ${JSON.stringify(held)}`,
        );
        assert.ok(held.venue.includes(name), `${id}: the venue as the site shows it (${held.venue})`);
        assert.match(held.price, new RegExp(`^\\${SITE[id].currency}\\d[\\d,]*\\.\\d{2}$`), `${id}: the price in the site's currency`);
        if (provider.scenario !== 'hotel') assert.match(held.time, /^\d{2}:\d{2}$/, `${id}: a time`);
        if (provider.scenario === 'flight') assert.match(held.arrival, /^\d{2}:\d{2}$/, `${id}: the arrival`);
        if (provider.scenario !== 'restaurant') assert.ok(held.item, `${id}: the option held`);

        // The handoff page (an API-key job: the link is the capability) shows what is held.
        const response = await fetch(job.handoffUrl);
        assert.equal(response.status, 200, id);
        const lines = heldLines(await response.text());
        for (const label of ['Provider', ...ASKED[provider.scenario].page, 'Price', 'Card on file']) assert.ok(lines.get(label), `${id}: the page shows ${label}: ${JSON.stringify([...lines])}`);
        assert.equal(lines.get('Provider'), provider.name);
        assert.ok(lines.get(ASKED[provider.scenario].page[0]!)!.includes(name), `${id}: the venue on the page`);
        assert.ok(lines.get(provider.scenario === 'hotel' ? 'Check-in' : 'Date')!.includes(dayMonthYear(held.date)), `${id}: the date on the page`);
        if (provider.scenario !== 'hotel') assert.equal(lines.get(provider.scenario === 'flight' ? 'Departure' : 'Time'), held.time, `${id}: the time on the page`);
        if (provider.scenario === 'hotel') assert.ok(lines.get('Check-out')!.includes(dayMonthYear(held.checkOut)), `${id}: the check-out on the page`);
        assert.equal(lines.get(ASKED[provider.scenario].page.find((l) => ['Party', 'Rooms and guests', 'Passengers', 'Tickets'].includes(l))!), held.quantity);
        assert.equal(lines.get('Price'), held.price);
        assert.equal(lines.get('Card on file'), SITE[id].cardOnFile);

        // The person, in control of the held tab, types the code where the focus already is and presses Enter.
        const session = service.services.executor.holds.get(job.jobId)!;
        await session.setUserInControl(true);
        await session.page.keyboard.type('123');
        const end = session.done;
        await session.page.keyboard.press('Enter');
        assert.equal((await end).kind, 'completed', id);
        const done = await waitForJob(service, key, job.jobId, { until: ['completed', 'error'], intervalMs: 300 });
        assert.equal(done.status, 'completed', `${id}: ${done.summary}`);
        assert.match(done.confirmationCode, SITE[id].confirmationCode, id);
        assert.ok(service.sandbox!.confirmations().some((c) => c.provider === id && c.code === done.confirmationCode && c.paidWithCard), `${id}: the code the site issued for a card payment`);
      }));
      // Each site received its code once, from the person.
      assert.equal(service.sandbox!.cardCodesReceived().length - codesBefore, PROVIDERS.length);
    });

    test('the person cancels: error cancelled_by_user, the hold is released and counted as a manual override', async () => {
      const { job } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Kadeau' }));
      const held = service.services.executor.holds.get(job.jobId)!;
      await held.cancel();
      assert.equal(held.isEnded(), true);
      const done = await waitForJob(service, key, job.jobId, { until: ['error'] });
      assert.equal(done.error.reason, 'cancelled_by_user');
      assert.equal(done.error.provider, 'tablebook');
      const events = await auditOf(service, key, job.jobId);
      assert.equal(events.at(-1).type, 'job_aborted');
      assert.deepEqual(outcomes(events), [['tablebook', 'accepted'], ['tablebook', 'manual_override']]);
      assert.equal(held.page.isClosed(), true);
    });

    test('a cancel handled by another process changes only the row: within a heartbeat the tab held here is closed, and nothing more is written', async () => {
      const { job } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Geranium' }));
      assert.equal(job.status, 'paused_payment');
      const held = service.services.executor.holds.get(job.jobId)!;
      // Another process, with its own hold registry (which does not hold this session), takes the cancel.
      const elsewhere = executorSessions(new HoldRegistry(service.services.db, createLogger('silent'), 'another-process', service.services.providers));
      const cancelled = await cancelHandoff({ db: service.services.db, sessions: elsewhere }, job.handoffUrl.split('/').pop(), null);
      assert.equal(cancelled.kind, 'cancelled');
      const written = (await auditOf(service, key, job.jobId)).length;
      assert.equal(held.isEnded(), false, 'this process has not heard of it yet');

      const end = await Promise.race([held.done, new Promise<null>((resolve) => setTimeout(() => resolve(null), 2 * HEARTBEAT_MS + 10_000))]);
      assert.deepEqual(end, { kind: 'lost', reason: 'the job ended in another process' }, 'the session ended at a heartbeat, long before its hold ran out');
      await until('the tab is closed: nobody can pay on it', () => held.page.isClosed(), 10_000, 50);
      assert.equal(service.services.executor.holds.get(job.jobId), undefined);
      const done = await waitForJob(service, key, job.jobId, { until: ['error'] });
      assert.equal(done.error.reason, 'cancelled_by_user', 'the row still says what the other process wrote');
      const events = await auditOf(service, key, job.jobId);
      assert.equal(events.length, written, 'no event of its own');
      assert.equal(events.at(-1).type, 'job_aborted');
    });

    test('a hold whose process is gone is released by the sweep (hold_lost); one past its deadline is handoff_expired', async () => {
      const lost = await runJob(service, key, requests.restaurant({ restaurant_name: 'Amass' }));
      const expired = await runJob(service, key, requests.restaurant({ restaurant_name: 'Barr' }));
      const holds = service.services.executor.holds;
      // As if another process held them and died: this process forgets them, their heartbeats stop.
      for (const id of [lost.job.jobId, expired.job.jobId]) {
        const session = holds.get(id)!;
        holds.forget(id);
        await session.page.context().close();
      }
      await service.services.db.updateTable('jobs').set({ hold_instance: 'gone', hold_seen_at: sql<Date>`now() - interval '1 minute'` }).where('id', '=', lost.job.jobId).execute();
      await service.services.db.updateTable('jobs').set({ hold_instance: 'gone', hold_expires_at: sql<Date>`now() - interval '1 second'` }).where('id', '=', expired.job.jobId).execute();
      // Not how many this sweep returns: the service's own sweep (every 10 s, WORKERS > 0) may release
      // either row first. Both are released by the time it returns, by one sweep or the other.
      await holds.sweep();
      const a = await waitForJob(service, key, lost.job.jobId, { until: ['error'], timeoutMs: 5_000 });
      assert.equal(a.error.reason, 'hold_lost');
      const b = await waitForJob(service, key, expired.job.jobId, { until: ['error'], timeoutMs: 5_000 });
      assert.equal(b.error.reason, 'handoff_expired');
      assert.deepEqual(outcomes(await auditOf(service, key, expired.job.jobId)).at(-1), ['tablebook', 'manual_override']);
      assert.equal(await holds.sweep(), 0, 'nothing left to release');
    });
  });

  describe(`hold expiry on ${backend.name}`, () => {
    let service: TestService;
    let key: string;
    before(async () => {
      service = await startTestService(backend.url, { WORKERS: '1', HOLD_SECONDS: '8' }, { sandbox: true });
      key = await service.mintKey();
    });
    after(() => service.close());

    test('HOLD_SECONDS later the hold ends by itself: error handoff_expired, job_failed with manual_override, the tab closed', async () => {
      const { job, events } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Jordnær' }));
      assert.equal(job.status, 'paused_payment');
      const pausedAt = Date.parse(events.at(-1).timestamp);
      const held = service.services.executor.holds.get(job.jobId)!;
      assert.ok(held.expiresAt.getTime() - pausedAt <= 8_100);
      const done = await waitForJob(service, key, job.jobId, { until: ['error'], timeoutMs: 30_000 });
      assert.equal(done.error.reason, 'handoff_expired');
      assert.equal(done.handoffUrl, job.handoffUrl, 'the link stays on the job: it shows how the hold ended');
      assert.match(done.summary, /ran out before the person paid/);
      const after = await auditOf(service, key, job.jobId);
      assert.equal(after.at(-1).type, 'job_failed');
      assert.equal(after.at(-1).providerOutcome, 'manual_override');
      // The tab is closed just after the status changes: give it a moment.
      await until('the tab is closed', () => held.page.isClosed(), 5_000, 100);
      const metrics = await call(service.url, 'GET', '/api/v1/metrics/providers/tablebook', { key });
      assert.equal(metrics.body.manualOverrideCount, 1);
      assert.equal(metrics.body.acceptedCount, 1);
    });

    test('stopping the service releases the holds it kept (hold_lost): a browser session cannot outlive its process', async () => {
      const { job } = await runJob(service, key, requests.restaurant({ restaurant_name: 'Koan' }));
      assert.equal(job.status, 'paused_payment');
      await service.services.executor.stop();
      const row = await service.services.db.selectFrom('jobs').select(['status', 'error']).where('id', '=', job.jobId).executeTakeFirstOrThrow();
      assert.equal(row.status, 'error');
      assert.equal(row.error?.reason, 'hold_lost');
    });
  });
}
