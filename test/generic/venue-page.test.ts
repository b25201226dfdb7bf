import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { GuardedPage } from '../../src/executor/guard/page-api.ts';
import { domStrategy } from '../../src/providers/generic/dom/index.ts';
import { snapshot } from '../../src/providers/generic/dom/snapshot.ts';
import type { Availability, SearchRequest } from '../../src/driver/types.ts';
import { guardedContext } from '../guard/attacks.ts';
import { launchChromium } from '../helpers/chromium.ts';

// Search results that are venues with "from" prices, then the venue's own page asking for the day
// (an inline list of day buttons named by their dates) and how many (a number between "−" and "+"
// in a labelled role=group): the driver opens the venue asked for, picks the day, steps the number
// and asks for availability; neither the day buttons nor the lone "Check availability" are options.

const PAGE = (body: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Things to do</title></head><body><main>${body}</main></body></html>`;
const asked: Array<Record<string, string>> = [];

function venuePage(url: URL): string {
  const date = url.searchParams.get('date');
  const people = url.searchParams.get('people') ?? '1';
  const days = Array.from({ length: 31 }, (_, i) => {
    const iso = `2030-07-${String(i + 1).padStart(2, '0')}`;
    const name = new Date(`${iso}T00:00:00Z`).toLocaleDateString('en-GB', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
    return `<li><button type="button" aria-label="${name}" data-date="${iso}">${i + 1}</button></li>`;
  }).join('');
  const options = date
    ? `<h2>Choose an option</h2><ul><li><h3>Morning tour</h3><p>Starting time: 10:00</p><p>${people} × €25.00</p><form method="post" action="/book"><button name="o" value="am">Book now</button></form></li>
<li><h3>Evening tour</h3><p>Starting time: 18:00</p><p>${people} × €30.00</p><form method="post" action="/book"><button name="o" value="pm">Book now</button></form></li></ul>`
    : '';
  return PAGE(`<h1>Harbour Kayak Tour</h1><form method="get" action="/venue"><h2>Select participants and date</h2><input type="hidden" name="name" value="${url.searchParams.get('name') ?? ''}">
<span id="people-l">Participants</span><div role="group" aria-labelledby="people-l"><button type="button" aria-label="Decrease participants" onclick="step(-1)">−</button><span id="people-v">${people}</span><input type="hidden" name="people" value="${people}"><button type="button" aria-label="Increase participants" onclick="step(1)">+</button></div>
<p id="date-l">Date: <span id="date-shown">${date ?? 'Select a date'}</span></p><input type="hidden" name="date" id="date" value="${date ?? ''}"><ul aria-labelledby="date-l">${days}</ul>
<p><button type="submit">Check availability</button></p></form>${options}
<script>function step(d){var i=document.querySelector('input[name=people]');i.value=Math.max(1,+i.value+d);document.getElementById('people-v').textContent=i.value;}
document.querySelectorAll('[data-date]').forEach(function(b){b.onclick=function(){document.getElementById('date').value=b.dataset.date;document.getElementById('date-shown').textContent=b.dataset.date;};});</script>`);
}

let server: Server;
let origin: string;
let browser: Browser;
before(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    res.writeHead(200, { 'content-type': 'text/html' });
    if (url.pathname === '/results') {
      return res.end(PAGE(`<h1>Porto: 3 activities found</h1><ul>${['Harbour Kayak Tour', 'Old Town walking tour', 'Port wine tasting'].map((n, i) => `<li><h2><a href="/venue?name=${encodeURIComponent(n)}">${n}</a></h2><p>Free cancellation</p><p>From €${25 + i * 10}.00 per person</p></li>`).join('')}</ul>`));
    }
    if (url.pathname === '/venue') {
      if (url.searchParams.get('date')) asked.push(Object.fromEntries(url.searchParams));
      return res.end(venuePage(url));
    }
    res.end(PAGE('<h1>Not found</h1>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe('a venue\'s own page asks for the day and how many', () => {
  test('the venue asked for is opened among priced results, its day picked and its number stepped; the options are the tours', async () => {
    const { context, log, page } = await guardedContext(browser);
    try {
      const g = new GuardedPage(page, log, { timeoutMs: 10_000 });
      await g.goto(`${origin}/results`);
      const request: SearchRequest = { scenario: 'activity', venue: 'Harbour Kayak Tour', city: 'Porto', date: '2030-07-14', tickets: 3 };
      const ctx = { page: g, provider: { id: 'x', name: 'X', scenario: 'activity' as const, startUrl: `${origin}/results` }, state: { notes: new Map(), request } };
      const found = (await domStrategy.availability!(ctx)) as Availability;
      assert.equal(found.kind, 'offers', JSON.stringify(found));
      if (found.kind !== 'offers') return;
      assert.deepEqual(found.offers.map((o) => o.label.slice(0, 12)), ['Morning tour', 'Evening tour']);
      assert.deepEqual(asked, [{ name: 'Harbour Kayak Tour', people: '3', date: '2030-07-14' }]);
    } finally {
      await context.close();
    }
  });

  test('the number between "−" and "+" in a labelled group is a stepper named by its group', async () => {
    const { context, log, page } = await guardedContext(browser);
    try {
      await page.goto(`${origin}/venue?name=x`);
      const s = await snapshot(new GuardedPage(page, log, { timeoutMs: 10_000 }));
      const stepper = s.fields.find((f) => f.type === 'stepper');
      assert.equal(stepper?.label, 'Participants');
      assert.equal(stepper?.value, '1');
      assert.ok(stepper?.stepper?.up && stepper.stepper.down);
    } finally {
      await context.close();
    }
  });
});
