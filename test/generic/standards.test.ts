import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { CardStepReached } from '../../src/executor/guard/page-errors.ts';
import { domStrategy } from '../../src/providers/generic/dom/index.ts';
import { fillGuest } from '../../src/providers/generic/dom/guest.ts';
import { fillAndSubmit, searchForm } from '../../src/providers/generic/dom/search.ts';
import { pressPastOverlays } from '../../src/providers/generic/dom/overlays.ts';
import { snapshot } from '../../src/providers/generic/dom/snapshot.ts';
import type { StepContext } from '../../src/providers/generic/strategy.ts';
import type { Availability } from '../../src/driver/types.ts';
import { guardedContext, type Guarded } from '../guard/attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';
import { TRAVELLER } from './harness.ts';

// General rules of the page-reading strategy, each on a small page of its own: what a form built on
// web standards asks (autocomplete tokens, labels, legends, country lists) and what the driver puts
// in it. The pages are no site's: each is the standard habit alone.

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const SENT = `<script>document.addEventListener('submit', (e) => { e.preventDefault(); window.sent = Object.fromEntries(new FormData(e.target)); });</script>`;

async function open(html: string): Promise<Guarded & { g: GuardedPage }> {
  const guarded = await guardedContext(browser);
  await guarded.page.setContent(`<!doctype html><html lang="en"><body>${html}${SENT}</body></html>`);
  return { ...guarded, g: new GuardedPage(guarded.page, guarded.log, { timeoutMs: 10_000 }) };
}

const sent = (page: Page) => page.evaluate(() => (window as unknown as { sent?: Record<string, string> }).sent ?? null);

const COUNTRIES = (values: 'code' | 'name') => [['FR', 'France'], ['DE', 'Germany'], ['IN', 'India'], ['ID', 'Indonesia'], ['GB', 'United Kingdom'], ['US', 'United States']]
  .map(([code, name]) => `<option value="${values === 'code' ? code : name}">${name}</option>`).join('');

describe('the generic driver reads forms by web standards', () => {
  test('a date of birth in three lists by the bday-day, bday-month and bday-year tokens; nationality by the country token and the passport\'s issuing country by its label', async () => {
    const { context, g, page } = await open(`<form>
<label for="first">First name</label><input id="first" name="first" autocomplete="section-p1 given-name">
<label for="last">Surname</label><input id="last" name="last" autocomplete="section-p1 family-name">
<fieldset><legend>Date of birth</legend>
<label for="d">Day</label><select id="d" name="d" autocomplete="section-p1 bday-day"><option value="">DD</option>${Array.from({ length: 31 }, (_, i) => `<option value="${i + 1}">${i + 1}</option>`).join('')}</select>
<label for="m">Month</label><select id="m" name="m" autocomplete="section-p1 bday-month"><option value="">MM</option>${['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'].map((n, i) => `<option value="${String(i + 1).padStart(2, '0')}">${n}</option>`).join('')}</select>
<label for="y">Year</label><select id="y" name="y" autocomplete="section-p1 bday-year"><option value="">YYYY</option>${Array.from({ length: 100 }, (_, i) => `<option>${2026 - i}</option>`).join('')}</select>
</fieldset>
<label for="nat">Nationality</label><select id="nat" name="nat" autocomplete="section-p1 country"><option value="">Select</option>${COUNTRIES('code')}</select>
<label for="pp">Passport number</label><input id="pp" name="pp">
<label for="iss">Passport issuing country</label><select id="iss" name="iss"><option value="">Select</option>${COUNTRIES('name')}</select>
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email">
<button type="submit">Continue</button></form>`);
    try {
      await fillGuest(g, { ...TRAVELLER, birthDate: '1985-03-07', passportCountry: 'GB' });
      assert.deepEqual(await sent(page), { first: 'Ada', last: 'Lovelace', d: '7', m: '03', y: '1985', nat: 'GB', pp: 'P1234567', iss: 'United Kingdom', email: 'ada@example.com' });
    } finally {
      await context.close();
    }
  });

  test('several travellers: one fieldset per passenger takes each in order (the lead first) and the contact once; a site that asks one passenger per page gets the next on each', async () => {
    const alan = { givenName: 'Alan', familyName: 'Turing', email: 'ada@example.com', phone: '+44 20 7946 0000', birthDate: '1912-06-23', passportNumber: 'AT1912062', passportCountry: 'GB' };
    const sections = (n: number) => `<fieldset><legend>Passenger ${n}</legend>
<label>First name <input name="p${n}_first" autocomplete="section-p${n} given-name" required></label>
<label>Last name <input name="p${n}_last" autocomplete="section-p${n} family-name" required></label>
<label>Passport number <input name="p${n}_pp" required></label></fieldset>`;
    const one = await open(`<form>${sections(1)}${sections(2)}<fieldset><legend>Contact</legend><label>Email <input name="email" type="email" autocomplete="email"></label><label>Phone <input name="tel" type="tel" autocomplete="tel"></label></fieldset><button>Continue</button></form>`);
    try {
      await fillGuest(one.g, { ...TRAVELLER, additionalTravellers: [alan] });
      assert.deepEqual(await sent(one.page), { p1_first: 'Ada', p1_last: 'Lovelace', p1_pp: 'P1234567', p2_first: 'Alan', p2_last: 'Turing', p2_pp: 'AT1912062', email: 'ada@example.com', tel: '+44 20 7946 0000' });
    } finally {
      await one.context.close();
    }
    // One passenger per page: the form comes back empty for the next, then the review.
    const wizard = await guardedContext(browser);
    await wizard.page.setContent(`<!doctype html><html lang="en"><body><main id="m"></main><script>
window.sentAll = [];
const show = (n) => { document.getElementById('m').innerHTML = n > 3 ? '<h1>Review</h1><p>3 passengers</p>'
  : '<h1>Passenger ' + n + ' of 3</h1><form><label>Given name <input name="given" autocomplete="given-name" required></label><label>Family name <input name="family" autocomplete="family-name" required></label><label>Date of birth <input name="dob" type="date" autocomplete="bday" required></label>' + (n === 1 ? '<label>Email <input name="email" type="email" autocomplete="email"></label>' : '') + '<button>Next passenger</button></form>'; };
document.addEventListener('submit', (e) => { e.preventDefault(); window.sentAll.push(Object.fromEntries(new FormData(e.target))); show(window.sentAll.length + 1); });
show(1);
</script></body></html>`);
    try {
      const g = new GuardedPage(wizard.page, wizard.log, { timeoutMs: 10_000 });
      await fillGuest(g, { ...TRAVELLER, additionalTravellers: [alan, { ...alan, givenName: 'Grace', familyName: 'Hopper', birthDate: '1906-12-09' }] });
      assert.deepEqual(await wizard.page.evaluate(() => (window as unknown as { sentAll: unknown[] }).sentAll), [
        { given: 'Ada', family: 'Lovelace', dob: '1985-12-10', email: 'ada@example.com' },
        { given: 'Alan', family: 'Turing', dob: '1912-06-23' },
        { given: 'Grace', family: 'Hopper', dob: '1906-12-09' },
      ]);
    } finally {
      await wizard.context.close();
    }
  });

  test('a date of birth in three boxes named by a "Date of birth" legend takes day, month and year; a country list by name is never matched by a prefix of the code', async () => {
    const { context, g, page } = await open(`<form>
<label>Full name <input name="name" autocomplete="name"></label>
<fieldset><legend>Date of birth</legend><label>Day <input name="dob_d" placeholder="DD" size="2"></label><label>Month <input name="dob_m" placeholder="MM" size="2"></label><label>Year <input name="dob_y" placeholder="YYYY" size="4"></label></fieldset>
<label>Country of issue <select name="issuer"><option value="">Choose</option>${COUNTRIES('name')}</select></label>
<label>Email <input name="email" type="email"></label>
<button>Next</button></form>`);
    try {
      await fillGuest(g, { ...TRAVELLER, birthDate: '1990-11-05', passportCountry: 'IN' });
      assert.deepEqual(await sent(page), { name: 'Ada Lovelace', dob_d: '05', dob_m: '11', dob_y: '1990', issuer: 'India', email: 'ada@example.com' });
    } finally {
      await context.close();
    }
  });

  test('a calling code asked apart (tel-country-code) takes the code and the phone box the number without it', async () => {
    const { context, g, page } = await open(`<form>
<label for="fn">First name</label><input id="fn" name="fn" autocomplete="given-name"><label for="ln">Last name</label><input id="ln" name="ln" autocomplete="family-name">
<label for="cc">Country/Territory code</label><select id="cc" name="cc" autocomplete="tel-country-code"><option value="1">United States +1</option><option value="44">United Kingdom +44</option><option value="33">France +33</option></select>
<label for="ph">Phone number</label><input id="ph" name="ph" type="tel" autocomplete="tel-national">
<button>Continue</button></form>`);
    try {
      await fillGuest(g, TRAVELLER);
      assert.deepEqual(await sent(page), { fn: 'Ada', ln: 'Lovelace', cc: '44', ph: '2079460000' });
    } finally {
      await context.close();
    }
  });

  test('a stepper\'s <output> is named by its labelled group, and one behind a collapsed disclosure ("2 adults · 1 room") is opened, set and closed', async () => {
    const { context, g, page } = await open(`<form>
<label for="city">City</label><input id="city" name="city"><label for="in">Check-in</label><input id="in" name="in" type="date"><label for="out">Check-out</label><input id="out" name="out" type="date">
<button type="button" id="occ" aria-expanded="false" aria-controls="pop" onclick="toggle()"><span id="occ-t">2 adults · 1 room</span></button>
<div id="pop" hidden><span id="ad-l">Adults</span><div role="group" aria-labelledby="ad-l"><button type="button" aria-label="Decrease" onclick="add(-1)">−</button><output id="ad" name="ad">2</output><button type="button" aria-label="Increase" onclick="add(1)">+</button></div></div>
<button type="submit">Search</button></form>
<script>function toggle(){var p=document.getElementById('pop');p.hidden=!p.hidden;document.getElementById('occ').setAttribute('aria-expanded',String(!p.hidden));}
function add(d){var o=document.getElementById('ad');o.value=String(Math.max(1,+o.value+d));document.getElementById('occ-t').textContent=o.value+' adults · 1 room';}
document.addEventListener('submit',function(){window.adults=document.getElementById('ad').value;window.open_=!document.getElementById('pop').hidden;},true);</script>`);
    try {
      const request = { scenario: 'hotel' as const, venue: 'Hotel X', city: 'Porto', checkIn: '2030-07-01', checkOut: '2030-07-03', adults: 4 };
      const plan = searchForm(await snapshot(g), request);
      assert.ok(plan?.fields.get('quantity'), 'the hidden stepper is part of the search');
      await fillAndSubmit(g, plan!, request, 'search');
      assert.deepEqual(await page.evaluate(() => [(window as unknown as { adults: string }).adults, (window as unknown as { open_: boolean }).open_]), ['4', false]);
      assert.deepEqual(await sent(page), { city: 'Porto', in: '2030-07-01', out: '2030-07-03' });
    } finally {
      await context.close();
    }
  });

  test('options as ARIA radios (role=radio in a role=radiogroup): read as offers, the one chosen checked, then the button that goes on pressed', async () => {
    const { context, g, page } = await open(`<main><h1>Choose your fare</h1><p>LHR to JFK · 12 December 2030</p>
<div role="radiogroup" aria-label="Fares">
<div role="radio" aria-checked="false" tabindex="0" id="f1">09:00 · Basic · €120.00</div>
<div role="radio" aria-checked="false" tabindex="-1" id="f2">09:00 · Standard · €150.00</div>
<div role="radio" aria-checked="false" aria-disabled="true" tabindex="-1" id="f3">09:00 · Flex · Sold out</div>
</div><button type="button" id="go">Continue</button></main>
<script>document.querySelectorAll('[role=radio]').forEach(function(r){r.onclick=function(){if(r.getAttribute('aria-disabled')==='true')return;document.querySelectorAll('[role=radio]').forEach(function(o){o.setAttribute('aria-checked',String(o===r));});};});
document.getElementById('go').onclick=function(){var c=document.querySelector('[role=radio][aria-checked=true]');window.sent={fare:c?c.id:''};};</script>`);
    try {
      const request = { scenario: 'flight' as const, origin: 'LHR', destination: 'JFK', date: '2030-12-12', passengers: 1 };
      const ctx: StepContext = { page: g, provider: { id: 'x', name: 'X', scenario: 'flight', startUrl: 'about:blank' }, state: { notes: new Map(), request } };
      const found = (await domStrategy.availability!(ctx)) as Availability;
      assert.equal(found.kind, 'offers', JSON.stringify(found));
      if (found.kind !== 'offers') return;
      assert.deepEqual(found.offers.map((o) => [o.label.slice(0, 16), o.available]), [['09:00 · Basic · ', true], ['09:00 · Standard', true], ['09:00 · Flex · S', false]]);
      await domStrategy.choose!(ctx, found.offers[1]!);
      assert.deepEqual(await sent(page), { fare: 'f2' });
    } finally {
      await context.close();
    }
  });

  test('a combobox that suggests cities: typed into, then the suggestion that is the city pressed', async () => {
    const { context, g, page } = await open(`<form><label for="city">Where to?</label>
<input id="city" role="combobox" aria-autocomplete="list" aria-expanded="false" aria-controls="sugg" autocomplete="off"><input type="hidden" name="city_id" id="city_id">
<ul id="sugg" role="listbox" hidden></ul>
<label for="in">Check-in</label><input id="in" name="in" type="date"><label for="out">Check-out</label><input id="out" name="out" type="date">
<label for="ad">Adults</label><input id="ad" name="ad" type="number" value="2"><button>Search</button></form>
<script>var c=document.getElementById('city'),l=document.getElementById('sugg');
c.addEventListener('input',function(){setTimeout(function(){var q=c.value.toLowerCase();var all=[['PRT','Portorož, Slovenia'],['OPO','Porto, Portugal'],['LIS','Lisbon, Portugal']];
l.innerHTML=all.filter(function(a){return a[1].toLowerCase().indexOf(q)===0;}).map(function(a){return '<li role="option" data-id="'+a[0]+'">'+a[1]+'</li>';}).join('');l.hidden=false;c.setAttribute('aria-expanded','true');},50);});
l.addEventListener('click',function(e){var o=e.target.closest('[role=option]');if(!o)return;c.value=o.textContent;document.getElementById('city_id').value=o.dataset.id;l.hidden=true;c.setAttribute('aria-expanded','false');});</script>`);
    try {
      const request = { scenario: 'hotel' as const, venue: 'Hotel X', city: 'Porto', checkIn: '2030-07-01', checkOut: '2030-07-03', adults: 2 };
      const plan = searchForm(await snapshot(g), request);
      await fillAndSubmit(g, plan!, request, 'search');
      assert.deepEqual(await sent(page), { city_id: 'OPO', in: '2030-07-01', out: '2030-07-03', ad: '2' });
    } finally {
      await context.close();
    }
  });

  test('a page read as JSON text is read the same on a page whose legacy library changed how JSON is written (Array.prototype.toJSON, as Prototype.js did)', async () => {
    const html = `<form><label for="n">Name</label><input id="n" name="n"><label for="e">Email</label><input id="e" name="e" type="email"><button>Book</button></form>`;
    const plain = await open(html);
    const legacy = await open(`<script>Array.prototype.toJSON = function () { return 'an array'; };</script>${html}`);
    try {
      const [a, b] = [await snapshot(plain.g), await snapshot(legacy.g)];
      assert.ok(Array.isArray(b.fields) && Array.isArray(b.controls), 'lists read as lists');
      assert.deepEqual(b.fields.map((f) => f.label), ['Name', 'Email']);
      assert.deepEqual(b.fields, a.fields);
      assert.deepEqual(b.controls, a.controls);
    } finally {
      await plain.context.close();
      await legacy.context.close();
    }
  });

  test('a consent box that comes over the search while the press waits for it (the button enabled 400 ms after load, the box at 300 ms) is answered, then the search pressed', async () => {
    const { context, g, page } = await open(`<form><label for="d">Date</label><input id="d" name="d" value="2030-07-01"><button id="go" disabled>Search</button></form>
<script>setTimeout(function(){var b=document.createElement('div');b.id='cc';b.setAttribute('role','dialog');b.setAttribute('aria-modal','true');
b.style.cssText='position:fixed;inset:0;background:rgba(0,0,0,.5);z-index:9';
b.innerHTML='<div style="background:#fff;margin:20vh auto;width:300px;padding:1em"><p>We use cookies to improve your experience.</p><button id="acc">Accept all</button> <button id="rej">Reject all</button></div>';
document.body.appendChild(b);b.addEventListener('click',function(e){if(e.target.tagName==='BUTTON'){window.consent=e.target.id;b.remove();}});},300);
setTimeout(function(){document.getElementById('go').disabled=false;},400);</script>`);
    try {
      const started = Date.now();
      await pressPastOverlays(g, '#go', 'search');
      assert.deepEqual(await sent(page), { d: '2030-07-01' });
      assert.equal(await page.evaluate(() => (window as unknown as { consent?: string }).consent), 'rej', 'answered with "Reject all"');
      assert.ok(Date.now() - started < 5_000, 'pressed without waiting for the press to time out');
    } finally {
      await context.close();
    }
  });

  test('a review that asks to accept the conditions: the required box is ticked before going on, a newsletter box is not', async () => {
    const { context, g, page } = await open(`<main><h1>Review your booking</h1><dl><dt>Date</dt><dd>Saturday, 12 December 2030</dd><dt>Total</dt><dd>€40.00</dd></dl>
<form><label><input type="checkbox" name="terms" required> I accept the terms and conditions</label>
<label><input type="checkbox" name="news"> Send me offers and news</label><button>Continue to payment</button></form></main>`);
    try {
      const ctx: StepContext = { page: g, provider: { id: 'x', name: 'X', scenario: 'restaurant', startUrl: 'about:blank' }, state: { notes: new Map() } };
      assert.ok(await domStrategy.review!(ctx), 'read as the review');
      await domStrategy.confirmReview!(ctx);
      assert.deepEqual(await sent(page), { terms: 'on' });
    } finally {
      await context.close();
    }
  });

  test('a Continue that comes back to the same list with the choice unticked and a message: chosen once more, then the site\'s words are the evidence', async () => {
    const html = (times: number) => `<main><h1>Choose your departure</h1><p>LHR to JFK · 12 December 2030</p><form id="f"><fieldset><legend>Flights</legend>
<label><input type="radio" name="o" value="a"> 09:00 · NW 101 · €120.00</label><label><input type="radio" name="o" value="b"> 13:00 · NW 103 · €140.00</label></fieldset>
<div id="err"></div><button>Continue</button></form>
<script>var lost=${times};document.getElementById('f').onsubmit=function(e){e.preventDefault();if(lost-->0){this.reset();document.getElementById('err').innerHTML='<p role="alert">Select a flight to continue.</p>';return;}
window.sent=Object.fromEntries(new FormData(this));};</script></main>`;
    const request = { scenario: 'flight' as const, origin: 'LHR', destination: 'JFK', date: '2030-12-12', passengers: 1 };
    for (const [lost, outcome] of [[1, 'sent'], [5, 'refused']] as const) {
      const { context, g, page } = await open(html(lost));
      try {
        const ctx: StepContext = { page: g, provider: { id: 'x', name: 'X', scenario: 'flight', startUrl: 'about:blank' }, state: { notes: new Map(), request } };
        const found = (await domStrategy.availability!(ctx)) as Availability;
        assert.equal(found.kind, 'offers');
        if (found.kind !== 'offers') return;
        const chose = domStrategy.choose!(ctx, found.offers[1]!) as Promise<unknown>;
        if (outcome === 'sent') {
          await chose;
          assert.deepEqual(await sent(page), { o: 'b' });
        } else {
          await assert.rejects(chose, /Select a flight to continue/);
        }
      } finally {
        await context.close();
      }
    }
  });

  test('a payment partner\'s frame with its own Pay button and nothing to press on the page: Pay goes into the frame and the guard pauses at its code field', async () => {
    const { context, g, page } = await open(`<h1>Payment</h1><p>Total €40.00</p><iframe title="Secure payment" srcdoc="<form><label for=cvc>Security code</label><input id=cvc autocomplete=cc-csc><button>Pay €40.00</button></form>"></iframe>`);
    try {
      await page.frameLocator('iframe').locator('#cvc').waitFor();
      const ctx: StepContext = { page: g, provider: { id: 'x', name: 'X', scenario: 'restaurant', startUrl: 'about:blank' }, state: { notes: new Map() } };
      const found = await domStrategy.payment!(ctx);
      assert.ok(found && typeof found === 'object' && found.cardField, 'the payment page is recognised by the frame\'s code field');
      await assert.rejects(domStrategy.pay!(ctx) as Promise<unknown>, (e) => e instanceof CardStepReached);
    } finally {
      await context.close();
    }
  });
});
