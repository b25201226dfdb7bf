import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { attempt, newContext } from '../generic/harness.ts';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';

// Real booking software nobody here wrote (issue 25): HotelDruid, Debian's hotel property-management
// system, unmodified, set up by scripts/hoteldruid-setup (installed by scripts/ensure-deps) from an
// empty database on a loopback port and booked through its public "Check availability" page. Its
// flow ends in a reservation *request* the hotel answers itself: the attempt completes with the
// site's own words and no code, and HotelDruid received exactly what was asked. Its first try,
// before any tuning, is in docs/reach.md.

const PORT = Number(process.env.HOTELDRUID_PORT ?? 8791);
const SETUP = new URL('../../scripts/hoteldruid-setup', import.meta.url).pathname;

function setup(...args: string[]): string {
  return execFileSync(SETUP, [...args, String(PORT)], { encoding: 'utf8', timeout: 120_000, stdio: ['ignore', 'pipe', 'pipe'] });
}

describe('HotelDruid, real hotel software, booked by the generic driver', { timeout: SUITE_TIMEOUT }, () => {
  let startUrl = '';
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    const out = setup('--reset');
    startUrl = /^start=(.+)$/m.exec(out)?.[1] ?? '';
    assert.match(startUrl, /^http:\/\/127\.0\.0\.1:\d+\/pages\/availability_tpl\.php$/, out);
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    setup('stop');
  });

  test('Hotel Belvedere, Lucca, 10 to 12 June 2030 for 2 adults: a request sent, in HotelDruid\'s words, and received as asked', async () => {
    const provider = { id: 'hoteldruid', name: 'Hotel Belvedere', scenario: 'hotel' as const, startUrl };
    const o = await attempt(context, provider, { scenario: 'hotel', venue: 'Hotel Belvedere', city: 'Lucca', checkIn: '2030-06-10', checkOut: '2030-06-12', adults: 2 });
    assert.equal(o.kind, 'completed', o.kind === 'failed' ? `${o.failure.kind} at ${o.failure.step}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'completed') return;
    assert.equal(o.code, null, 'a request claims no confirmation');
    assert.match(o.requestSent ?? '', /Request for reservation sent/);
    const received = setup('requests').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
    assert.equal(received.length, 1, JSON.stringify(received));
    assert.deepEqual({ checkIn: received[0].checkIn, checkOut: received[0].checkOut, people: received[0].people, name: received[0].name, surname: received[0].surname, email: received[0].email },
      { checkIn: '2030-06-10', checkOut: '2030-06-12', people: 2, name: 'Ada', surname: 'Lovelace', email: 'ada@example.com' });
  });
});
