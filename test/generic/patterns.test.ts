import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { PATTERNS_BOOKED, startPatternSites } from './fixtures/patterns.ts';
import { attempt } from './harness.ts';
import { bookAndPay, payAndReadBack, sitesSuite, WANT } from './site-suite.ts';

// The generic driver on sites each built around one pattern it had not met (fixtures/patterns.ts):
// it books each to the pause at the card code, the site receives what was asked (its own record),
// and no card code reaches it. Each site's first try, before any change to the driver, is in
// docs/reach.md.

describe('the generic driver on WAI-ARIA patterns, other languages and real naming', { timeout: SUITE_TIMEOUT }, () => {
  const suite = sitesSuite(startPatternSites);

  test('muto: a field the site refuses silently (its label turns red, no message) is reported by name, not read as a missing review', async () => {
    const provider = { id: 'muto', name: 'Muto', scenario: 'restaurant' as const, startUrl: suite.sites.url('muto') };
    const o = await attempt(suite.context, provider, { scenario: 'restaurant', venue: 'Muto', city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
    assert.equal(o.kind === 'failed' && o.failure.kind, 'error', o.kind === 'failed' ? o.failure.message : o.kind);
    if (o.kind === 'failed') assert.equal(o.failure.message, 'Muto did not accept the guest details: Phone is marked as not accepted (in red, with no message)');
  });

  test('esperienza: a search of one field, an editable combobox that filters as it is typed; the experience\'s page asks the day and how many', async () => {
    const codesBefore = suite.sites.cardCodes;
    const provider = { id: 'esperienza', name: 'Lisbon Walks', scenario: 'activity' as const, startUrl: suite.sites.url('esperienza') };
    const o = await attempt(suite.context, provider, { scenario: 'activity', venue: 'Alfama Food Walk', city: 'Lisbon', date: WANT.date, tickets: 3 });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.equal(suite.sites.cardCodes, codesBefore);
      assert.match(o.held?.venue ?? '', /Alfama Food Walk/);
      assert.match(o.held?.quantity ?? '', /^3 tickets$/);
      assert.equal(o.decisions.switched, undefined);
    } finally {
      await o.page.close();
    }
  });

  test('pedido: a site that takes requests is a completed request with its own words, no code, nothing claimed as booked', async () => {
    const provider = { id: 'pedido', name: 'Casa Pedido', scenario: 'restaurant' as const, startUrl: suite.sites.url('pedido') };
    const o = await attempt(suite.context, provider, { scenario: 'restaurant', venue: 'Casa Pedido', city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
    assert.equal(o.kind, 'completed', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'completed') return;
    assert.equal(o.code, null, 'no confirmation code is claimed');
    assert.match(o.requestSent ?? '', /^Request for reservation sent\. Thank you, Ada Lovelace\. Casa Pedido will confirm your table for 3 on Monday, 10 June 2030 at 19:30 by email within 24 hours\.$/);
    const sent = suite.sites.requests.find((r) => r.site === 'pedido');
    assert.deepEqual(sent && { date: sent.date, time: sent.time, party: sent.party, name: sent.name, email: sent.email }, { ...WANT, name: 'Ada Lovelace', email: 'ada@example.com' });
    assert.equal(suite.sites.bookings.some((b) => b.site === 'pedido'), false);
  });

  test('vincolo: a binding order without a card (bank transfer) is the person\'s to place: paused before "Place binding order", nothing ordered', async () => {
    const provider = { id: 'vincolo', name: 'Tasca Vinculo', scenario: 'restaurant' as const, startUrl: suite.sites.url('vincolo') };
    const o = await attempt(suite.context, provider, { scenario: 'restaurant', venue: 'Tasca Vinculo', city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
    assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
    if (o.kind !== 'paused') return;
    try {
      assert.equal(o.control, 'Place binding order');
      assert.equal(o.field, null);
      assert.equal(o.held?.price, '€75.00');
      assert.equal(suite.sites.bookings.some((b) => b.site === 'vincolo'), false, 'no order was placed');
      const denied = o.events.find((e) => e.type === 'action_denied' && /binding/.test(e.message));
      assert.match(denied?.message ?? '', /Not pressing 'Place binding order' at Tasca Vinculo: it places an order the person must then pay, with no card step/);
      // The person reads it, ticks the terms and places the order on the live view.
      await o.page.getByLabel('I accept the terms and conditions').check();
      await o.page.getByRole('button', { name: 'Place binding order' }).click();
      await o.page.getByRole('heading', { name: 'Booked' }).waitFor();
      assert.equal(suite.sites.bookings.filter((b) => b.site === 'vincolo').length, 1);
    } finally {
      await o.page.close();
    }
  });

  test('charge: a question a chosen time opens that speaks of charging a card ("Confirm", a €30.00 deposit) is the person\'s: not answered, nothing held', async () => {
    const provider = { id: 'charge', name: 'Carico', scenario: 'restaurant' as const, startUrl: suite.sites.url('charge') };
    const o = await attempt(suite.context, provider, { scenario: 'restaurant', venue: 'Carico', city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
    assert.notEqual(o.kind, 'paused', 'it did not go on past the question');
    assert.equal(o.events.some((e) => e.type === 'action_allowed' && /\(Confirm\)/.test(e.message)), false, 'Confirm was never pressed');
    assert.equal(suite.sites.bookings.some((b) => b.site === 'charge'), false);
  });

  for (const [site, how] of [['framed', 'of another origin'], ['framedlink', 'given by a link that redirects to it']] as const) {
    test(`${site}: a venue page whose booking engine is a frame ${how} is booked at the frame's own address, and the audit says so`, async () => {
      const codesBefore = suite.sites.cardCodes;
      const provider = { id: site, name: 'Cornicetta', scenario: 'restaurant' as const, startUrl: suite.sites.url(site) };
      const o = await attempt(suite.context, provider, { scenario: 'restaurant', venue: 'Cornicetta', city: 'Porto', date: WANT.date, time: WANT.time, partySize: WANT.party });
      assert.equal(o.kind, 'paused', o.kind === 'failed' ? `${o.failure.kind}: ${o.failure.message}` : o.kind);
      if (o.kind !== 'paused') return;
      try {
        assert.equal(suite.sites.cardCodes, codesBefore);
        assert.match(o.page.url(), /^http:\/\/localhost:\d+\/framedengine\/pay\//, 'the card-code page is the engine\'s, in the tab');
        const search = o.events.find((e) => e.type === 'action_allowed' && /to search/.test(e.message));
        assert.match(search?.message ?? '', new RegExp(`in the booking engine ${suite.sites.url(site).replace(/[./]/g, '\\$&')} holds in a frame, opened at its own address`));
        const booked = await payAndReadBack(o.page, suite.sites, 'framedengine');
        assert.deepEqual(booked && { date: booked.date, time: booked.time, party: booked.party, name: booked.name }, { date: WANT.date, time: WANT.time, party: WANT.party, name: 'Ada Lovelace' });
      } finally {
        await o.page.close();
      }
    });
  }

  for (const { site, venue, what } of PATTERNS_BOOKED) {
    test(`${site}: ${what}`, async () => {
      const booked = await bookAndPay(suite, site, venue, (o) => {
        if (site === 'lumen') {
          const review = o.events.find((e) => e.type === 'step_started' && /^Reviewing/.test(e.message));
          assert.match(review?.message ?? '', /the venue asked for: "Casa Lumen Porto · Ribeira" is "Casa Lumen" with "porto", "ribeira" added/, 'the audit quotes why the names are one venue');
        }
        if (site === 'cmpframe') assert.match(o.events.filter((e) => e.type === 'action_allowed').map((e) => e.message).join('\n'), /notice in its frame \(Reject all\)/, 'the most private choice, pressed in the frame');
        if (site === 'formato') assert.deepEqual(suite.sites.refused.filter((r) => r.site === 'formato').map((r) => r.form.when), ['2030-06-10'], 'refused once (the ISO date), then sent as the site said');
        if (site === 'tavolo') {
          const pressed = o.events.filter((e) => e.type === 'action_allowed').map((e) => e.message).join('\n');
          assert.match(pressed, /to search \(Cerca\); fields without a label read by "Giorno" from the table cell, "Ora" from the table cell, "Persone" from the table cell/, 'the audit says where each unlabelled field\'s name came from');
          assert.match(pressed, /to send the guest details \(Continua\); fields without a label read by .*"Cognome" from the table cell/);
        }
      });
      if (site === 'terms') assert.deepEqual(booked.ticked, ['terms'], 'only the terms were accepted: no wine pairing, no newsletter');
      if (site === 'switch') assert.deepEqual(booked.ticked, ['policy'], 'only the cancellation policy was switched on, not the newsletter');
      if (site === 'ariacheck') assert.deepEqual(booked.ticked, ['conditions'], 'only the booking conditions were ticked, not the reminder');
    });
  }
});
