import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { CardStepReached, GuardedPage, GuardRefusal } from '../../src/executor/guard/page-api.ts';
import { tablebook } from '../../src/providers/tablebook/index.ts';
import { daysFromNow } from '../helpers/service.ts';
import { ATTACKS, launch } from './attacks.ts';

// Layer 1 on its own: the page API drivers get, with no in-page script and no network interception.
// It offers no way to put text into a card-code field, however the field is disguised, and refuses
// to press a control that would submit one: that refusal is where a booking pauses.

let browser: Browser;
let sandbox: Sandbox;
before(async () => {
  browser = await launch();
  sandbox = await startSandbox();
});
after(async () => {
  await browser.close();
  await sandbox.close();
});

describe('payment guard, driver layer alone', () => {
  test('filling any disguised card-code field is refused (fill and fillForm), ordinary fields are filled', async () => {
    const context = await browser.newContext();
    const log = new GuardLog();
    const page = await context.newPage();
    const g = new GuardedPage(page, log);
    for (const a of ATTACKS.filter((x) => !x.frame)) {
      await g.goto(`${sandbox.origin('adversarial')}${a.path}`);
      for (const field of a.fields) {
        await assert.rejects(g.fill(field, '735'), GuardRefusal, `${a.path} ${field}`);
        assert.equal(await page.inputValue(field), '');
      }
    }
    await g.goto(`${sandbox.origin('adversarial')}/early`);
    await assert.rejects(g.fillForm([['#gn', 'Ada'], ['#sc', '735']]), GuardRefusal);
    assert.equal(await page.inputValue('#gn'), '', 'all or nothing: the form was left untouched');
    await g.fillForm([['#gn', 'Ada'], ['#fn', 'Lovelace']]);
    assert.equal(await page.inputValue('#gn'), 'Ada');
    const denied = log.deniedBy('driver');
    assert.ok(denied.length >= 13);
    assert.ok(denied.every((m) => /\(driver layer\) refused to fill the card security code field/.test(m) && !m.includes('735')));
    await context.close();
  });

  test('pressing a control that submits a card-code field (or any button while one is shown) is refused: the pause', async () => {
    const context = await browser.newContext();
    const log = new GuardLog();
    const page = await context.newPage();
    const g = new GuardedPage(page, log);
    for (const path of ['/odd-label', '/odd-label/split', '/early', '/autosubmit', '/fetch', '/fetch/ws']) {
      await g.goto(`${sandbox.origin('adversarial')}${path}`);
      await assert.rejects(g.submit('#adv-submit', 'continue'), CardStepReached, path);
    }
    assert.equal(page.url(), `${sandbox.origin('adversarial')}/fetch/ws`, 'no click went through');
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('the TableBook driver walks to the payment page and its Pay press is refused; the code field is never filled', async () => {
    const context = await browser.newContext();
    const log = new GuardLog();
    const page = await context.newPage();
    const g = new GuardedPage(page, log);
    const request = { scenario: 'restaurant' as const, venue: 'Noma', city: 'Copenhagen', date: daysFromNow(5), time: '19:30', partySize: 2 };
    await tablebook.search(g, sandbox.origin('tablebook'), request);
    const availability = await tablebook.availability(g);
    assert.equal(availability.kind, 'offers');
    const offer = availability.kind === 'offers' ? availability.offers.find((o) => o.time === '19:30' && o.available)! : null;
    await tablebook.choose(g, offer!);
    await tablebook.guestDetails(g, { givenName: 'Ada', familyName: 'Lovelace', email: 'ada@example.com', phone: '+44 20 7946 0958' }, request);
    assert.ok(await tablebook.review(g));
    await tablebook.confirmReview(g);
    const payment = await tablebook.payment(g);
    assert.equal(payment?.cardOnFile, 'Visa •••• 4242');
    await assert.rejects(g.fill(payment!.cardField, '735'), GuardRefusal);
    await assert.rejects(tablebook.pay(g), (error: unknown) => error instanceof CardStepReached && error.field === 'cvc');
    assert.match(page.url(), /\/reservations\/\w+\/payment$/);
    assert.equal(log.entries.filter((e) => e.kind === 'allowed').length, 4, 'search, choose, details, review were allowed');
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });
});
