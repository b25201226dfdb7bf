import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SUITE_TIMEOUT } from '../sandbox/drivers.ts';
import { GAUNTLET, startGauntlet } from './fixtures/gauntlet.ts';
import { bookAndPay, sitesSuite } from './site-suite.ts';

// The generic driver against widgets nobody here wrote (fixtures/gauntlet.ts): each site's one
// library-made input, as npm ships it. Booked to the pause at the card code, the site's own record
// is what was asked, no card code reached it. First tries are in docs/reach.md.

describe('the generic driver on widget libraries from npm', { timeout: SUITE_TIMEOUT }, () => {
  const suite = sitesSuite(startGauntlet);

  for (const [site, { library, widget, venue }] of Object.entries(GAUNTLET)) {
    test(`${library}: ${widget}`, async () => {
      const booked = await bookAndPay(suite, site, venue, async (o) => {
        if (site !== 'cookieconsent') return;
        const consent = (await o.page.context().cookies()).find((c) => c.name === 'cc_cookie');
        assert.deepEqual(JSON.parse(decodeURIComponent(consent?.value ?? '{}')).categories, ['necessary'], 'the consent box was answered with "Reject all"');
      });
      if (site === 'radix') assert.deepEqual(booked.ticked, ['terms'], 'the required conditions ticked, the offers left alone');
      if (site === 'intltel') assert.equal(booked.phone, '+442079460000', 'the number in full, with its calling code');
    });
  }
});
