import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchBrowser, SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { startShops, type RunningShops } from './fixtures/shop.ts';
import { attempt, newContext, TRAVELLER } from './harness.ts';

// The generic driver in ticket shops built as pretix builds its presale pages (fixtures/shop.ts):
// ticket types with a number box each and one "Add to cart", the cart, questions per ticket, the
// payment method, "Place binding order". Two tickets of one type, each with its attendee's name;
// the newsletter and the add-on left alone, no card code sent. The shop's own record is the
// evidence. First tries are in docs/reach.md.

describe('the generic driver in a ticket shop (pretix\'s presale flow)', { timeout: SUITE_TIMEOUT }, () => {
  let shops: RunningShops;
  let browser: Browser;
  let context: BrowserContext;
  before(async () => {
    shops = await startShops();
    browser = await launchBrowser();
    context = await newContext(browser);
  });
  after(async () => {
    await browser?.close();
    await shops?.close();
  });

  test('aurora (a series, bank transfer only): two Regular tickets in the buyer\'s name, paused before "Place binding order", placed by the person', async () => {
    const provider = { id: 'aurora', name: 'Aurora Tickets', scenario: 'activity' as const, startUrl: shops.url('aurora') };
    const o = await attempt(context, provider, { scenario: 'activity', venue: 'Aurora Jazz Night', city: 'Porto', date: '2030-06-10', tickets: 2, seatType: 'Regular' });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.equal(o.control, 'Place binding order');
      assert.ok(o.events.some((e) => e.type === 'action_denied' && (e.data as { reason?: string } | undefined)?.reason === 'binding_order'), 'the binding order is left to the person');
      const order = shops.orders.find((x) => x.shop === 'aurora');
      assert.deepEqual(order && { date: order.date, tickets: order.tickets, email: order.email, attendees: order.attendees, answers: order.answers, newsletter: order.newsletter, addons: order.addons, payment: order.payment, placed: order.placed }, {
        date: '2030-06-10',
        tickets: { Regular: 2 },
        email: 'ada@example.com',
        attendees: [{ given: 'Ada', family: 'Lovelace' }, { given: 'Ada', family: 'Lovelace' }],
        answers: ['', ''],
        newsletter: false,
        addons: 0,
        payment: 'banktransfer',
        placed: false,
      });
      // The person reads the order on the live view, agrees to the terms and places it.
      await o.page.getByLabel('I agree with the terms and conditions').check();
      await o.page.getByRole('button', { name: 'Place binding order' }).click();
      await o.page.getByRole('heading', { name: 'Thank you!' }).waitFor();
      assert.equal(order!.placed, true);
      assert.equal(order!.paid, false, 'a bank transfer is paid later');
      assert.equal(shops.cardCodes, 0);
    } finally {
      await o.page.close();
    }
  });

  test('lumiere (one date, paid by card): two VIP tickets, one per traveller, paused at the security code, paid by the person', async () => {
    const provider = { id: 'lumiere', name: 'Cinema Lumière', scenario: 'activity' as const, startUrl: shops.url('lumiere') };
    const traveller = { ...TRAVELLER, additionalTravellers: [{ givenName: 'Grace', familyName: 'Hopper', email: TRAVELLER.email, phone: TRAVELLER.phone }] };
    const o = await attempt(context, provider, { scenario: 'activity', venue: 'Cinema Lumière Open Air', city: 'Lisbon', date: '2030-06-10', tickets: 2, seatType: 'VIP' }, { traveller });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.notEqual(o.field, null, 'paused at the card-code field');
      assert.equal(shops.cardCodes, 0, 'no card code reached the shop');
      const order = shops.orders.find((x) => x.shop === 'lumiere');
      assert.deepEqual(order && { date: order.date, tickets: order.tickets, email: order.email, attendees: order.attendees, answers: order.answers, newsletter: order.newsletter, addons: order.addons, placed: order.placed }, {
        date: '2030-06-10',
        tickets: { VIP: 2 },
        email: 'ada@example.com',
        attendees: [{ given: 'Ada', family: 'Lovelace' }, { given: 'Grace', family: 'Hopper' }],
        answers: ['', ''],
        newsletter: false,
        addons: 0,
        placed: false,
      });
      await payByCard(o.page);
      assert.equal(order!.placed, true);
      assert.equal(order!.paid, true);
      assert.equal(shops.cardCodes, 1, 'the person\'s code, once');
    } finally {
      await o.page.close();
    }
  });

  test('fado (one ticket type, so one number box): three tickets, each in the buyer\'s name, paused at the security code, paid by the person', async () => {
    const provider = { id: 'fado', name: 'Fado Tickets', scenario: 'activity' as const, startUrl: shops.url('fado') };
    const codesBefore = shops.cardCodes;
    const o = await attempt(context, provider, { scenario: 'activity', venue: 'Fado in Alfama', city: 'Lisbon', date: '2030-06-10', tickets: 3 });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.equal(shops.cardCodes, codesBefore, 'no card code reached the shop');
      const order = shops.orders.find((x) => x.shop === 'fado');
      assert.deepEqual(order && { tickets: order.tickets, attendees: order.attendees, newsletter: order.newsletter, addons: order.addons }, {
        tickets: { Admission: 3 },
        attendees: Array.from({ length: 3 }, () => ({ given: 'Ada', family: 'Lovelace' })),
        newsletter: false,
        addons: 0,
      });
      await payByCard(o.page);
      assert.equal(order!.paid, true);
    } finally {
      await o.page.close();
    }
  });

  test('teatro (the cart shown above the ticket list, pretix\'s default): two Balcony tickets, paused at the security code, paid by the person', async () => {
    const provider = { id: 'teatro', name: 'Teatro Nacional', scenario: 'activity' as const, startUrl: shops.url('teatro') };
    const codesBefore = shops.cardCodes;
    const o = await attempt(context, provider, { scenario: 'activity', venue: 'Teatro Nacional: A Gaivota', city: 'Lisbon', date: '2030-06-10', tickets: 2, seatType: 'Balcony' });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.equal(shops.cardCodes, codesBefore, 'no card code reached the shop');
      const carts = shops.orders.filter((x) => x.shop === 'teatro');
      assert.equal(carts.length, 1, 'one cart: nothing added twice');
      assert.deepEqual({ tickets: carts[0]!.tickets, attendees: carts[0]!.attendees, newsletter: carts[0]!.newsletter, addons: carts[0]!.addons }, {
        tickets: { Balcony: 2 },
        attendees: [{ given: 'Ada', family: 'Lovelace' }, { given: 'Ada', family: 'Lovelace' }],
        newsletter: false,
        addons: 0,
      });
      await payByCard(o.page);
      assert.equal(carts[0]!.paid, true);
    } finally {
      await o.page.close();
    }
  });
});

/** The person enters the card on the held tab, goes on to the review and places the order. */
async function payByCard(page: Page): Promise<void> {
  await page.getByLabel('Card number').fill('4242 4242 4242 4242');
  await page.getByLabel('Expiration date (MM/YY)').fill('12/34');
  await page.getByLabel('Security code').fill('123');
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.getByLabel('I agree with the terms and conditions').check();
  await page.getByRole('button', { name: 'Place binding order' }).click();
  await page.getByRole('heading', { name: 'Thank you!' }).waitFor();
}
