import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { startSandbox, type Sandbox } from '../../sandbox/index.ts';
import { GuardLog } from '../../src/executor/guard/events.ts';
import { GuardedPage, type GuardedPageOptions } from '../../src/executor/guard/page-api.ts';
import { installGuard } from '../../src/executor/guard/index.ts';
import { armPress } from '../../src/executor/guard/page-checks.ts';
import { SETTLE_QUIET } from '../../src/executor/guard/page-settle.ts';
import type { PressWatch } from '../../src/executor/guard/in-page/arm-press.ts';
import { CardCheckFailed, CardStepReached, GuardRefusal, MissingElement } from '../../src/executor/guard/page-errors.ts';
import { asFailure } from '../../src/executor/failures.ts';
import type { NudgeKey } from '../../src/driver/page.ts';
import { tablebook } from '../../src/providers/tablebook/index.ts';
import { daysFromNow } from '../helpers/service.ts';
import { ATTACKS } from './attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { servePages } from '../helpers/page-server.ts';

// Layer 1 on its own: the page API drivers get, with no in-page script and no network interception.
// It offers no way to put text into a card-code field, however the field is disguised, and refuses
// to press a control that would submit one: that refusal is where a booking pauses.

let browser: Browser;
let sandbox: Sandbox;
before(async () => {
  browser = await launchChromium();
  sandbox = await startSandbox();
});
after(async () => {
  await browser.close();
  await sandbox.close();
});

/** A new context's tab behind the driver-layer page API, and the log of its guard events. */
async function guardedTab(options?: GuardedPageOptions) {
  const context = await browser.newContext();
  const log = new GuardLog();
  const page = await context.newPage();
  return { context, log, page, g: new GuardedPage(page, log, options) };
}

describe('payment guard, driver layer alone', () => {
  test('filling any disguised card-code field is refused (fill, type and fillForm), ordinary fields are filled', async () => {
    const { context, log, page, g } = await guardedTab();
    for (const a of ATTACKS.filter((x) => !x.frame && x.kind !== 'choice')) {
      await g.goto(`${sandbox.origin('adversarial')}${a.path}`);
      for (const field of a.fields) {
        await assert.rejects(g.fill(field, '735'), GuardRefusal, `${a.path} ${field}`);
        await assert.rejects(g.type(field, '735'), GuardRefusal, `typed key by key: ${a.path} ${field}`);
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

  test('a code picked rather than typed is refused too: a list of digits (select, fillForm) and a radio button (check), each with an action_denied', async () => {
    const { context, log, page, g } = await guardedTab();
    await g.goto(`${sandbox.origin('adversarial')}/select`);
    await assert.rejects(g.select('#cvc-d1', '7'), (e: unknown) => e instanceof GuardRefusal && e.field === 'cvc_d1');
    await assert.rejects(g.fillForm([['#cvc-d2', '3']]), (e: unknown) => e instanceof GuardRefusal && e.field === 'cvc_d2');
    assert.deepEqual(await page.$$eval('select', (els) => els.map((e) => (e as HTMLSelectElement).value)), ['', '', '']);
    await assert.rejects(g.submit('#adv-submit', 'pay'), CardStepReached, 'the form holds a card-code list: the pause');

    await g.goto(`${sandbox.origin('adversarial')}/radio`);
    await assert.rejects(g.check('input[name="cvv_1"][value="7"]'), (e: unknown) => e instanceof GuardRefusal && e.field === 'cvv_1');
    assert.equal(await page.locator('input[type=radio]:checked').count(), 0);

    const denied = log.deniedBy('driver');
    assert.deepEqual(denied.slice(0, 2), [
      "Payment guard (driver layer) refused to choose a value in the card security code field 'cvc_d1'.",
      "Payment guard (driver layer) refused to fill the card security code field 'cvc_d2'.",
    ]);
    assert.equal(denied.at(-1), "Payment guard (driver layer) refused to tick the card security code field 'cvv_1'.");
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('ordinary lists and radio buttons are still chosen (the flight search\'s cabin, a time slot)', async () => {
    const { context, log, page, g } = await guardedTab();
    await g.goto(`${sandbox.origin('skyfare')}/`);
    await g.select('#sf-cabin', 'business');
    assert.equal(await page.inputValue('#sf-cabin'), 'business');
    await page.setContent('<form><fieldset><legend>Choose a time</legend><label><input type="radio" name="time_slot" value="1930">7:30 PM</label></fieldset></form>');
    await g.check('input[name="time_slot"]');
    assert.equal(await page.isChecked('input[name="time_slot"]'), true);
    assert.deepEqual(log.deniedBy('driver'), []);
    await context.close();
  });

  test('pressing a control that submits a card-code field (or any button while one is shown) is refused: the pause', async () => {
    const { context, log, page, g } = await guardedTab();
    for (const path of ['/odd-label', '/odd-label/split', '/early', '/autosubmit', '/fetch', '/fetch/ws', '/radio', '/link-pay']) {
      await g.goto(`${sandbox.origin('adversarial')}${path}`);
      await assert.rejects(g.submit('#adv-submit', 'continue'), CardStepReached, path);
      assert.equal(page.url(), `${sandbox.origin('adversarial')}${path}`, `${path}: no click went through`);
    }
    // A link is pressed like a button: beside a code field, it is refused too.
    assert.match(log.deniedBy('driver').at(-1)!, /refused to press 'Pay now': the next step takes the card security code \('cvc'\)/);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('pressing a control several times in a row (a calendar\'s next month) checks every press: one made after a card-code field appeared is refused, the pause', async () => {
    const { context, log, page, g } = await guardedTab();
    await page.setContent(`<p id="month">0</p><button id="next">Next month</button><div id="pay"></div>
<script>let n = 0; document.getElementById('next').onclick = () => { n++; document.getElementById('month').textContent = String(n);
if (n === 2) document.getElementById('pay').innerHTML = '<label>Security code <input name="cvc"></label>'; };</script>`);
    try {
      await assert.rejects(g.pressRepeatedly('#next', 4, 'show the next month'), CardStepReached);
      assert.equal(await page.textContent('#month'), '2', 'the two presses before the card-code field appeared went through, none after');
      assert.match(log.deniedBy('driver').at(-1)!, /refused to press 'Next month'/);
    } finally {
      await context.close();
    }
  });

  test('a control the page renders a moment later is waited for and used; one that never comes is a missing part of the page, within the element time limit', async () => {
    const { context, page, g } = await guardedTab({ timeoutMs: 10_000, elementTimeoutMs: 1_000 });
    await page.setContent(`<p id="out"></p><script>setTimeout(() => { document.body.insertAdjacentHTML('beforeend', '<label>Name <input id="name"></label><button id="go">Go</button>');
document.getElementById('go').onclick = () => { document.getElementById('out').textContent = 'sent ' + document.getElementById('name').value; }; }, 300);</script>`);
    try {
      await g.fill('#name', 'Ada');
      await g.press('#go', 'send');
      assert.equal(await page.textContent('#out'), 'sent Ada');
      const started = Date.now();
      await assert.rejects(g.press('#nowhere', 'go on'), (e: unknown) => e instanceof MissingElement && /#nowhere/.test(e.message));
      await assert.rejects(g.check('#nowhere'), MissingElement);
      assert.ok(Date.now() - started < 5_000, 'given up after the element time limit, not the page\'s');
    } finally {
      await context.close();
    }
  });

  test('the control checked is the control pressed: a plain CSS selector is answered by the page, a control in a shadow root or named by a Playwright selector through Playwright, and a Pay among them is refused', async () => {
    const { context, log, page, g } = await guardedTab();
    // A payment partner's frame in a shadow root's form, and a light-DOM form that only continues.
    await page.setContent(`<div id="host"></div><form><button type="button" onclick="document.title = 'continued'">Continue</button></form>
<script>document.getElementById('host').attachShadow({ mode: 'open' }).innerHTML =
  '<form onsubmit="event.preventDefault(); document.title = \\'paid\\'"><iframe srcdoc="<p>Card details</p>"></iframe><button id="pay">Pay</button></form>';</script>`);
    try {
      await g.press('form button', 'continue');
      assert.equal(await page.title(), 'continued', 'the light-DOM match is the one pressed, as Playwright resolves it');
      await assert.rejects(g.press('#pay', 'pay'), CardStepReached, 'a control only a shadow root holds: its form\'s frame is seen');
      await assert.rejects(g.press('button:has-text("Pay")', 'pay'), CardStepReached, 'a Playwright selector');
      assert.equal(await page.title(), 'continued', 'Pay was never pressed');
      assert.ok(log.deniedBy('driver').every((m) => /refused to press 'Pay': the next step takes the card security code \('card iframe'\)/.test(m)));
      // The same on a page with no shadow root: a CSS selector and a Playwright one name the same field.
      await page.setContent(`<form><label>Name <input id="name"></label><label>Security code <input id="cvc" name="cvc"></label><button id="go">Pay</button></form>`);
      await g.fill('#name', 'Ada');
      await assert.rejects(g.fill('#cvc', '735'), GuardRefusal);
      await assert.rejects(g.fill('input >> nth=1', '735'), GuardRefusal);
      await assert.rejects(g.press('#go', 'pay'), CardStepReached);
      assert.equal(await page.inputValue('#cvc'), '');
      assert.equal(await page.inputValue('#name'), 'Ada');
    } finally {
      await context.close();
    }
  });

  test('a form drawn in a shadow root (a web component) is filled in the page, by id or by a path through the host, all or nothing: with a card-code field among its fields, none is filled', async () => {
    const { context, log, page, g } = await guardedTab();
    await page.setContent(`<guest-form></guest-form><script>document.querySelector('guest-form').attachShadow({ mode: 'open' }).innerHTML =
  '<form><label>Name <input id="name"></label><label>Time <select id="time"><option>19:00</option><option>19:30</option></select></label><label>Security code <input id="cvc" name="cvc"></label></form>';</script>`);
    try {
      const value = (sel: string) => page.locator(sel).inputValue();
      await assert.rejects(g.fillForm([['#name', 'Ada'], ['#cvc', '735']]), GuardRefusal);
      assert.deepEqual([await value('#name'), await value('#cvc')], ['', ''], 'nothing filled');
      assert.ok(log.deniedBy('driver').some((m) => /refused to fill the card security code field/.test(m) && !m.includes('735')));
      await g.fillForm([['#name', 'Ada'], ['#time', '19:30']]);
      assert.deepEqual([await value('#name'), await value('#time')], ['Ada', '19:30']);
      // The reading's path runs through the host into its root (driver/shadow-path.ts), and a code field named so is refused too.
      await g.fillForm([['html > body > guest-form > form > label:nth-of-type(1) > input', 'Grace']]);
      assert.equal(await value('#name'), 'Grace');
      await assert.rejects(g.fillForm([['html > body > guest-form > form > label:nth-of-type(3) > input', '735']]), GuardRefusal);
      assert.equal(await value('#cvc'), '');
      assert.deepEqual(await g.present(['#name', '#nowhere']), [true, false], 'present() looks inside the root too');
    } finally {
      await context.close();
    }
  });

  test('a date box whose picker opens on focus is left once filled (its picker would lie over the next control); a box with a suggestion list keeps the focus', async () => {
    const { context, page, g } = await guardedTab();
    await page.setContent(`<input id="date" role="combobox" aria-haspopup="dialog" aria-expanded="false"><input id="city" role="combobox" aria-haspopup="listbox">
<div id="picker" role="dialog" hidden style="position:fixed;inset:0;background:#fff">June 2030</div><button id="go" onclick="document.title = 'pressed'">Search</button>
<script>const d = document.getElementById('date'), p = document.getElementById('picker');
d.addEventListener('focus', () => { p.hidden = false; d.setAttribute('aria-expanded', 'true'); });
d.addEventListener('blur', () => { p.hidden = true; d.setAttribute('aria-expanded', 'false'); });</script>`);
    try {
      await g.fill('#date', '2030-06-10');
      assert.equal(await page.locator('#picker').isHidden(), true, 'the picker closed as the box was left');
      assert.equal(await page.inputValue('#date'), '2030-06-10');
      await g.press('#go', 'search');
      assert.equal(await page.title(), 'pressed');
      await g.fill('#city', 'Porto');
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'city', 'a suggestion box keeps the focus');
    } finally {
      await context.close();
    }
  });

  test('a widget moved by its keys (nudge): a card-code field is never moved, and no key that types or presses is sent', async () => {
    const { context, log, page, g } = await guardedTab();
    try {
      for (const a of ATTACKS.filter((x) => !x.frame && x.kind !== 'choice').slice(0, 4)) {
        await g.goto(`${sandbox.origin('adversarial')}${a.path}`);
        await assert.rejects(g.nudge(a.fields[0]!, 'ArrowUp', 3), GuardRefusal, a.path);
        assert.equal(await page.inputValue(a.fields[0]!), '', `${a.path}: untouched`);
      }
      // A slider with no tabindex takes no focus: the keys would go to the number box focused before.
      await page.setContent('<input id="n" type="number" value="5"><span id="s" role="slider" aria-valuenow="1" aria-valuemin="0" aria-valuemax="9">1</span>');
      await page.focus('#n');
      await assert.rejects(g.nudge('#s', 'ArrowUp', 2), /does not take the focus/);
      assert.equal(await page.inputValue('#n'), '5', 'the focused box was not moved');
      await assert.rejects(g.nudge('#n', 'ArrowUp', 100_000), /1 to 200 times/);
      // A slider drawn in a web component's shadow root takes the focus there (the document's active
      // element is the component): it is moved.
      await page.setContent(`<guest-count></guest-count><script>document.querySelector('guest-count').attachShadow({ mode: 'open' }).innerHTML =
  '<span id="c" role="slider" tabindex="0" aria-valuenow="2" aria-valuemin="1" aria-valuemax="9">2</span>';
const c = document.querySelector('guest-count').shadowRoot.getElementById('c');
c.addEventListener('keydown', (e) => { if (e.key === 'ArrowUp') c.textContent = c.ariaValueNow = String(Number(c.ariaValueNow) + 1); });</script>`);
      await g.nudge('#c', 'ArrowUp', 2);
      assert.equal(await page.locator('#c').textContent(), '4');
      await g.goto(`${sandbox.origin('adversarial')}/early`);
      await assert.rejects(g.nudge('#gn', 'Enter' as NudgeKey, 1), /navigation key, not Enter/);
      await assert.rejects(g.nudge('#gn', '7' as NudgeKey, 1), /navigation key, not 7/);
      assert.equal(await page.inputValue('#gn'), '');
      assert.ok(log.deniedBy('driver').every((m) => /refused to fill the card security code field/.test(m)));
    } finally {
      await context.close();
    }
  });

  test('a link, a form or a button that would open the next page in a new tab opens it in the tab the run holds', async () => {
    const server = await servePages((request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      if (request.url !== '/') return void response.end(`<!doctype html><title>Next ${request.method} ${request.url}</title><p>Your details</p>`);
      response.end(`<!doctype html><title>Times</title><a id="link" href="/guest?via=link" target="_blank">Book 19:30</a>
<form method="post" action="/guest?via=form" target="booking"><button id="form">Reserve 20:00</button></form>
<form method="post" action="/guest?via=button"><button id="button" formtarget="_blank">Reserve 20:30</button></form>`);
    });
    const origin = server.origin;
    const { context, page, g } = await guardedTab();
    try {
      for (const [control, title] of [['#link', 'Next GET /guest?via=link'], ['#form', 'Next POST /guest?via=form'], ['#button', 'Next POST /guest?via=button']]) {
        await g.goto(`${origin}/`);
        await g.submit(control!, 'choose a time');
        assert.equal(await page.title(), title, `${control}: the next page came in this tab`);
        assert.equal(context.pages().length, 1, `${control}: no other tab was opened`);
      }
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('a frame that cannot be asked whether it shows a card-code field is a refusal, not a "no": nothing is pressed', async () => {
    // The short limit is for the press's question to the busy frame; the page loads without it.
    const { context, log, page, g } = await guardedTab({ timeoutMs: 1_000 });
    await page.goto(`${sandbox.origin('adversarial')}/iframe/busy`);
    // The payment partner's frame is loaded and its renderer busy: it answers nothing for 15 s.
    const frame = await (await page.waitForSelector('#adv-payment-frame')).contentFrame();
    await frame!.waitForLoadState('load');
    await page.waitForTimeout(100);
    await assert.rejects(g.submit('#adv-submit', 'continue'), (e: unknown) => e instanceof CardCheckFailed && /a frame from http:\/\/payments\.localhost:#+: the page did not answer/.test(e.message));
    assert.match(page.url(), /\/iframe\/busy$/, 'not pressed');
    assert.deepEqual(log.deniedBy('driver'), [`Payment guard (driver layer) refused to press 'Continue': it could not check a frame from ${sandbox.origin('payments').replace(/[0-9]/g, '#')} for a card security code field.`]);
    assert.equal(log.entries.filter((e) => e.kind === 'allowed').length, 0);
    await context.close();
  });

  test('a card field the page does not show at once is never taken for "none": in a frame lazy, still loading, sandboxed or added as Pay is pressed, or in a shadow root, Pay is refused (the pause)', async () => {
    const { context, log, page, g } = await guardedTab({ timeoutMs: 30_000 });
    const origin = sandbox.origin('adversarial');
    const sandboxed = (flags: string) => `/iframe/sandboxed?sandbox=${encodeURIComponent(flags)}`;
    const cases: Array<[string, string]> = [
      ['/iframe/lazy', 'cvc'], // far below the fold, outside the form: loaded and asked
      ['/iframe/slow', 'cvc'], // its document still loading: asked once it is there
      ['/iframe/late', 'card iframe'], // put into the form as the pointer goes down on Pay
      ['/iframe/late?where=page', 'cvc'], // put beside the form: the press stops, the new frame is asked
      ...['', 'allow-forms', 'allow-scripts', 'allow-scripts allow-same-origin'].map((flags): [string, string] => [sandboxed(flags), 'cvc']),
      ['/shadow', 'cvc'], // inside a web component's shadow root
    ];
    for (const [path, field] of cases) {
      await g.goto(`${origin}${path}`);
      // The press's own time, not the page's load (a slow frame takes 2 s): well under its 30 s limit.
      const started = Date.now();
      await assert.rejects(g.submit('#adv-submit', 'pay'), (e: unknown) => e instanceof CardStepReached && e.field === field, path);
      assert.ok(Date.now() - started < 25_000, `${path}: decided without running into the time limit`);
      await page.waitForTimeout(200);
      assert.equal(page.url(), `${origin}${path}`, `${path}: Pay was not pressed`);
    }
    assert.equal(log.entries.filter((e) => e.kind === 'allowed').length, 0);
    assert.equal(log.deniedBy('driver').length, cases.length);
    await context.close();
  });

  test('a frame with no card field that appears as a control is pressed (an advert) is asked, then the control is pressed again; a page that adds one at every press is not pressed', async () => {
    const { context, log, page, g } = await guardedTab({ timeoutMs: 8_000 });
    const origin = sandbox.origin('adversarial');
    await g.goto(`${origin}/iframe/late?where=page&what=advert&once`);
    await g.submit('#adv-submit', 'pay');
    assert.equal(page.url(), `${origin}/iframe/paid`, 'the second press went through');
    assert.deepEqual(log.deniedBy('driver'), []);
    assert.deepEqual(log.entries.map((e) => e.kind), ['allowed']);

    await g.goto(`${origin}/iframe/late?where=page&what=advert`);
    await assert.rejects(g.submit('#adv-submit', 'pay'), (e: unknown) => e instanceof CardCheckFailed && /a frame appeared on the page each time the control was pressed/.test(e.message));
    await page.waitForTimeout(200);
    assert.equal(page.url(), `${origin}/iframe/late?where=page&what=advert`, 'never pressed through');
    assert.equal(await page.locator('iframe[title=Advert]').count(), 3, 'pressed three times, stopped each time');
    assert.deepEqual(log.deniedBy('driver'), ["Payment guard (driver layer) refused to press 'Pay now': a frame appeared on the page each of the 3 times it was pressed."]);
    assert.deepEqual(sandbox.cardCodesReceived(), []);
    await context.close();
  });

  test('whether a payment page asks for the card code is asked of every frame: a code field in a partner\'s iframe or a shadow root counts, a page without one does not', async () => {
    const { context, log, g } = await guardedTab({ timeoutMs: 8_000 });
    const origin = sandbox.origin('adversarial');
    // The driver's own selector names nothing on these pages: only the guard's look finds the field.
    for (const path of ['/iframe', '/iframe/lazy', '/shadow']) {
      await g.goto(`${origin}${path}`);
      assert.equal(await g.asksForCardCode('#no-such-field', 'Pay'), true, path);
    }
    await g.goto(`${origin}/iframe/late?where=page&what=advert`);
    assert.equal(await g.asksForCardCode('#no-such-field', 'Pay'), false, 'a page with no code field anywhere');
    assert.equal(await g.asksForCardCode('#adv-submit', 'Pay'), true, 'the selector, when it matches');
    assert.deepEqual(log.entries, [], 'looking presses nothing and records nothing');
    await context.close();
  });

  test('the TableBook driver walks to the payment page and its Pay press is refused; the code field is never filled', async () => {
    const { context, log, page, g } = await guardedTab();
    const request = { scenario: 'restaurant' as const, venue: 'Noma', city: 'Copenhagen', date: daysFromNow(5), time: '19:30', partySize: 2 };
    await tablebook.search(g, `${sandbox.origin('tablebook')}/`, request);
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

describe('settling after a press', () => {
  test('a page is read after its last render: a second render a frame later, a render that comes only after a pause, a scripted animation, and the same after a fetch', async () => {
    const server = await servePages((request, response) => {
      if (request.url === '/slots') {
        setTimeout(() => response.end('3 tables'), 50);
        return;
      }
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>Calendar</title><button id="two">Next month</button><button id="late">Later</button><button id="anim">Slide</button>
<button id="fetch">Search</button><button id="fetch-late">Search again</button><p id="out"></p>
<script>
  const out = document.getElementById('out');
  document.getElementById('fetch').onclick = () => {
    out.textContent = 'Searching…';
    fetch('/slots').then((r) => r.text()).then((t) => { out.textContent = t; setTimeout(() => { out.textContent = t + ' found'; }, 20); });
  };
  document.getElementById('fetch-late').onclick = () => {
    fetch('/slots').then((r) => r.text()).then((t) => setTimeout(() => { out.textContent = t + ' found again'; }, 40));
  };
  document.getElementById('two').onclick = () => { out.textContent = 'Loading…'; setTimeout(() => { out.textContent = 'July 2030'; }, 20); };
  document.getElementById('late').onclick = () => { setTimeout(() => { out.textContent = 'Shown late'; }, 45); };
  document.getElementById('anim').onclick = () => {
    let frame = 0;
    const step = () => { out.style.left = (frame * 10) + 'px'; out.textContent = frame < 12 ? 'sliding' : 'Slid in'; if (frame++ < 12) setTimeout(step, 16); };
    step();
  };
</script>`);
    });
    const context = await browser.newContext();
    try {
      const g = new GuardedPage(await context.newPage(), new GuardLog());
      await g.goto(`${server.origin}/`);
      const shown = () => g.inspect(() => document.getElementById('out')!.textContent, null);
      await g.press('#two', 'show the next month');
      assert.equal(await shown(), 'July 2030', 'the render 20 ms after the first one is waited for');
      await g.press('#late', 'show it later');
      assert.equal(await shown(), 'Shown late', 'a page that has not changed yet is given longer');
      await g.press('#anim', 'slide');
      assert.equal(await shown(), 'Slid in', 'a page changing every frame is waited for until it stops');
      await g.press('#fetch', 'search');
      assert.equal(await shown(), '3 tables found', 'the answer is waited for, and the render 20 ms after it');
      await g.press('#fetch-late', 'search again');
      assert.equal(await shown(), '3 tables found again', 'an answer not shown yet when it arrives is given longer');
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('settling after a page loads and after typing: a page that builds itself a moment after it is parsed, and suggestions shown 50 ms after each key, are waited for', async () => {
    const server = await servePages((_request, response) => {
      response.setHeader('content-type', 'text/html; charset=utf-8');
      response.end(`<!doctype html><title>Search</title><main id="app"></main><script>
  setTimeout(() => {
    document.getElementById('app').innerHTML = '<input id="q" aria-label="Where"><ul id="s"></ul>';
    const q = document.getElementById('q');
    q.addEventListener('input', () => { const v = q.value; setTimeout(() => { document.getElementById('s').innerHTML = '<li>' + v + ', Portugal</li>'; }, 50); });
  }, 20);
</script>`);
    });
    const context = await browser.newContext();
    try {
      // With the guard's init scripts, as every booking's tab has them (the change log among them).
      await installGuard(context, new GuardLog());
      const g = new GuardedPage(await context.newPage(), new GuardLog());
      await g.goto(`${server.origin}/`);
      await g.settle();
      assert.equal(await g.exists('#q'), true, 'the page built 20 ms after it was parsed is read');
      await g.type('#q', 'Porto');
      await g.settle();
      assert.equal(await g.inspect(() => document.getElementById('s')!.textContent, null), 'Porto, Portugal', 'the suggestion for the whole word is shown');
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('a request the page never answers (a long poll) holds a press back only briefly, and the next press not at all', async () => {
    // A single-page app that opens a long poll when a button is pressed and shows its answer in place.
    const polls: Array<() => void> = [];
    const server = await servePages((request, response) => {
      if (request.url === '/poll') {
        polls.push(() => response.destroy());
        return;
      }
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>Chat</title><button id="chat">Chat</button><button id="more">More</button><p id="out"></p>
<script>
  document.getElementById('chat').onclick = () => { fetch('/poll').catch(() => {}); document.getElementById('out').textContent = 'Connecting…'; };
  document.getElementById('more').onclick = () => { document.getElementById('out').textContent = 'More shown'; };
</script>`);
    });
    const context = await browser.newContext();
    try {
      const g = new GuardedPage(await context.newPage(), new GuardLog(), { timeoutMs: 60_000 });
      await g.goto(`${server.origin}/`);
      let started = Date.now();
      await g.press('#chat', 'open the chat');
      const first = Date.now() - started;
      assert.equal(polls.length, 1, 'the long poll is open');
      // The poll is background once it has been open a few seconds: not the minute the guard allows.
      assert.ok(first < 30_000, `the press settled in ${first} ms`);
      started = Date.now();
      await g.press('#more', 'show more');
      assert.equal(await g.inspect(() => document.getElementById('out')!.textContent, null), 'More shown');
      assert.ok(Date.now() - started < first, 'the poll still open does not hold the next press back');
    } finally {
      for (const close of polls) close();
      await context.close();
      await server.close();
    }
  });
});

describe('a page that goes on by itself', () => {
  test('a read cut short by the page\'s own navigation is asked again of the document that came; one the page keeps cutting short fails as a transient failure, not as a page not understood', async () => {
    const server = await servePages((request, response) => {
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><title>Rooms</title><p id="where">${request.url === '/' ? 'first' : 'rooms'}</p>`);
    });
    const context = await browser.newContext();
    try {
      const g = new GuardedPage(await context.newPage(), new GuardLog());
      const home = `${server.origin}/`;
      await g.goto(home);
      // The page leaves while the question is under way (as a script's redirect does), only from the first page.
      const slowRead = (always: boolean) => g.inspect((every) => {
        if (every || location.pathname === '/') setTimeout(() => { location.href = '/rooms?' + Date.now(); }, 30);
        return new Promise<string>((resolve) => setTimeout(() => resolve(document.getElementById('where')!.textContent!), 600));
      }, always);
      assert.equal(await slowRead(false), 'rooms', 'the answer is the next document\'s');

      // A page that leaves every time it is asked never answers: the read gives up after a few tries.
      const failure = await slowRead(true).catch((error: unknown) => error);
      assert.ok(failure instanceof Error, 'a page that never stays put fails the read');
      const read = asFailure(failure);
      assert.equal(read.kind, 'transient', read.message);
      assert.match(read.message, /navigated by itself/);
    } finally {
      await context.close();
      await server.close();
    }
  });

  test('a press that sends a form or follows a link to another document is known to be leaving the page, whether or not its request has started; one the page stops, a dialog\'s form and a link within the page are not', async () => {
    // The next documents are never answered: the page being left stays, and its press watch can be asked.
    const held: Array<() => void> = [];
    const server = await servePages((request, response) => {
      if (request.url !== '/') return void held.push(() => response.destroy());
      response.setHeader('content-type', 'text/html');
      response.end(`<!doctype html><form method="post" action="/next"><button id="send">Search</button></form>
<form method="post" action="/next" onsubmit="event.preventDefault()"><button id="scripted">Search here</button></form>
<dialog open><form method="dialog"><button id="close">Close</button></form></dialog>
<a id="away" href="/rooms">Rooms</a> <a id="within" href="#rooms">Rooms below</a> <a id="hash" href="#" onclick="return true">Top</a>`);
    });
    const context = await browser.newContext();
    try {
      const home = `${server.origin}/`;
      // Armed, pressed and disarmed in one question: asked once the click is under way, Playwright
      // would wait for the next document, which never comes. A tab per press: a navigation the last
      // press started (held by the server) would otherwise cut the next page's load short.
      const leaving = async (selector: string) => {
        const page = await context.newPage();
        try {
          await page.goto(home);
          return await page.locator(selector).evaluate((el, [arm, quiet]) => {
            const watch = (0, eval)(`(${arm})`)(el) as PressWatch;
            (el as HTMLElement).click();
            return watch.disarm(quiet).then((d) => d.leaving);
          }, [String(armPress), SETTLE_QUIET] as const);
        } finally {
          await page.close();
        }
      };
      assert.equal(await leaving('#send'), true, 'a form sent');
      assert.equal(await leaving('#away'), true, 'a link to another page');
      assert.equal(await leaving('#scripted'), false, 'a form the page sends itself');
      assert.equal(await leaving('#close'), false, 'a dialog\'s form');
      assert.equal(await leaving('#within'), false, 'a link to a part of the page');
      assert.equal(await leaving('#hash'), false, 'a link to "#"');
    } finally {
      for (const end of held) end();
      await context.close();
      await server.close();
    }
  });
});
