/**
 * Tavola — a restaurant reservation site in the OpenTable style: server-rendered
 * pages, a GET search, a popover date picker (a month grid of day buttons named
 * by date), time slots as buttons, a deposit paid with the card on file.
 * Confirmation: schema.org FoodEstablishmentReservation (reservationNumber) and
 * a visible "Confirmation #".
 */
import { calendarScript } from '../calendar.ts';
import { code, expired, gate, guest, hold, minutesLeft, pay, search, type SiteCtx } from '../core.ts';
import { attr, captchaWidget, html, htmlRes, jsonLd, longDate, money, ok, page, raw, redirect, time12, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { Booking, FormState, RestaurantSearch, SearchRecord } from '../../engine/types.ts';

const CARD = 'Visa ending in 4242';
const CSS = `body{font-family:Helvetica,Arial,sans-serif;margin:0;color:#2d333f}header{background:#da3743;color:#fff;padding:12px 24px;font-weight:700;font-size:22px}
main{max-width:760px;margin:24px auto;padding:0 16px}.row{display:flex;gap:12px;flex-wrap:wrap;align-items:end}.field{display:flex;flex-direction:column;gap:4px}
.slots button{background:#da3743;color:#fff;border:0;border-radius:4px;padding:8px 14px;margin:4px}.slots button[disabled]{background:#eee;color:#999}
.cta{background:#da3743;color:#fff;border:0;border-radius:4px;padding:10px 20px;font-size:16px}.err{color:#b00020}.pop{position:absolute;background:#fff;border:1px solid #ccc;padding:8px;z-index:5}
.cal-day{width:36px;height:32px}.cal-day[aria-pressed=true]{background:#da3743;color:#fff}dl{display:grid;grid-template-columns:160px 1fr}`;

function layout(title: string, body: SafeHtml, head?: SafeHtml): string {
  return page({ title: `${title} | Tavola`, css: CSS, head, body: html`<header><a href="/" style="color:#fff;text-decoration:none">Tavola</a></header><main>${body}</main>` });
}

const TIMES: Array<[string, string]> = [];
for (let m = 7 * 60; m < 24 * 60; m += 15) {
  const v = `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  TIMES.push([v, time12(v)]);
}

function err(form: FormState, name: string): SafeHtml {
  const e = form.errors[name];
  return e ? html`<span class="err" id="${name}-err" role="alert">${e}</span>` : raw('');
}
function inv(form: FormState, name: string): SafeHtml {
  return form.errors[name] ? raw(` aria-invalid="true" aria-describedby="${name}-err"`) : raw('');
}

function home(form: FormState): string {
  const v = form.values;
  const date = v.date ?? '';
  return layout('Find your table', html`<h1>Find your table for any occasion</h1>
<form action="/s" method="get" role="search" aria-label="Find a table" class="row">
 <div class="field"><label for="term">Restaurant or cuisine</label><input id="term" name="term" value="${v.term ?? ''}" placeholder="Restaurant, cuisine or location"${inv(form, 'term')}>${err(form, 'term')}</div>
 <div class="field"><label for="metro">City</label><input id="metro" name="metro" value="${v.metro ?? ''}" autocomplete="address-level2"${inv(form, 'metro')}>${err(form, 'metro')}</div>
 <div class="field" style="position:relative"><span id="date-caption">Date</span><input type="hidden" id="date" name="date" value="${date}">
  <button type="button" id="date-btn" aria-haspopup="dialog" aria-expanded="false" aria-controls="date-pop" aria-describedby="date-caption"><span id="date-text">${date ? longDate(date) : 'Choose a date'}</span></button>
  <div id="date-pop" class="pop" role="dialog" aria-label="Choose a date" hidden><div id="date-cal"></div></div>${err(form, 'date')}</div>
 <div class="field"><label for="time">Time</label><select id="time" name="time"${inv(form, 'time')}>${TIMES.map(([val, label]) => html`<option value="${val}"${attr('selected', val === (v.time || '19:00'))}>${label}</option>`)}</select>${err(form, 'time')}</div>
 <div class="field"><label for="covers">Party size</label><select id="covers" name="covers"${inv(form, 'covers')}>${Array.from({ length: 20 }, (_, i) => i + 1).map((n) => html`<option value="${n}"${attr('selected', String(n) === (v.covers || '2'))}>${n} ${n === 1 ? 'person' : 'people'}</option>`)}</select>${err(form, 'covers')}</div>
 <button type="submit" class="cta">Let\u2019s go</button>
</form>
<script>document.getElementById('date-btn').addEventListener('click',function(){var p=document.getElementById('date-pop');p.hidden=!p.hidden;this.setAttribute('aria-expanded',String(!p.hidden));});</script>
${calendarScript({ input: 'date', container: 'date-cal', display: 'date-text', locale: 'en-US', grid: true, closeOnPick: true })}`);
}

const SEARCH_NAMES: Record<string, string> = { term: 'restaurant_name', metro: 'city', date: 'date', time: 'time', covers: 'party_size' };

function venue(s: SearchRecord): RestaurantSearch {
  return s.query as RestaurantSearch;
}

function restaurantLd(q: RestaurantSearch): SafeHtml {
  return jsonLd({ '@context': 'https://schema.org', '@type': 'Restaurant', name: q.restaurantName, address: { '@type': 'PostalAddress', addressLocality: q.city } });
}

function results(s: SearchRecord, message?: string): string {
  const q = venue(s);
  const g = gate(s);
  const when = html`${longDate(q.date)} · ${q.partySize} ${q.partySize === 1 ? 'person' : 'people'}`;
  if (g === 'captcha') {
    return layout('One more step', html`<h1>One more step</h1><p>Before you continue, let us know you\u2019re not a robot.</p>${captchaWidget('recaptcha')}
<form method="post" action="/restaurant/${s.id}/verify"><button type="submit" class="cta">Continue</button></form>${message ? html`<p class="err" role="alert">${message}</p>` : ''}`);
  }
  const body = g === 'sold-out'
    ? html`<div role="status" class="empty"><p><strong>No tables available</strong></p><p>${q.restaurantName} has no availability on ${longDate(q.date)} for ${q.partySize}. Try another date or party size.</p></div>`
    : html`<form method="post" action="/restaurant/${s.id}/hold"><h2 id="slots-h">Select a time</h2>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<div class="slots" role="group" aria-labelledby="slots-h">${s.options.map((o) => o.available
      ? html`<button type="submit" name="slot" value="${o.id}">${time12(o.time ?? '')}</button>`
      : html`<button type="button" disabled aria-label="${time12(o.time ?? '')}, not available">${time12(o.time ?? '')}</button>`)}</div>
<p>Seating: ${s.options[0]?.description ?? ''}. A deposit of ${money(s.options[0]?.unitPrice ?? 0, 'USD')} per person is required.</p></form>`;
  return layout(q.restaurantName, html`<h1>${q.restaurantName}</h1><p>${q.city} · ${when}</p>${body}<p><a href="/?${new URLSearchParams({ term: q.restaurantName, metro: q.city, date: q.date, time: q.time, covers: String(q.partySize) }).toString()}">Change search</a></p>`, restaurantLd(q));
}

function signIn(returnTo: string, error?: string): string {
  return layout('Sign in', html`<h1>Sign in to continue</h1><p>Members-only dining: sign in to see available tables.</p>${error ? html`<p class="err" role="alert">${error}</p>` : ''}
<form method="post" action="/login"><input type="hidden" name="return" value="${returnTo}">
<div class="field"><label for="login-email">Email</label><input id="login-email" name="email" type="email" autocomplete="username"></div>
<div class="field"><label for="login-pw">Password</label><input id="login-pw" name="password" type="password" autocomplete="current-password"></div>
<button class="cta" type="submit">Sign in</button></form>`);
}

function summary(b: Booking): SafeHtml {
  const q = venue(b.search);
  return html`<dl><dt>Restaurant</dt><dd>${q.restaurantName}</dd><dt>Date</dt><dd>${longDate(q.date)}</dd><dt>Time</dt><dd>${time12(b.option.time ?? '')}</dd>
<dt>Party size</dt><dd>${q.partySize} ${q.partySize === 1 ? 'person' : 'people'}</dd><dt>Seating</dt><dd>${b.option.description ?? ''}</dd>
<dt>Deposit</dt><dd>${money(b.option.total, 'USD')} (${money(b.option.unitPrice, 'USD')} per person)</dd></dl>`;
}

function details(b: Booking, form: FormState): string {
  const v = form.values;
  const f = (id: string, label: string, ac: string, type = 'text') =>
    html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="${id}" type="${type}" autocomplete="${ac}" value="${v[id] ?? ''}"${inv(form, id)}>${err(form, id)}</div>`;
  return layout('Diner details', html`<h1>You\u2019re almost done!</h1><p>We\u2019re holding this table for you for ${minutesLeft(b)} minutes.</p>${summary(b)}
<form method="post" action="/booking/${b.id}"><h2>Diner details</h2>
${f('firstName', 'First name', 'given-name')}${f('lastName', 'Last name', 'family-name')}${f('phone', 'Phone number', 'tel', 'tel')}${f('email', 'Email', 'email', 'email')}
<div class="field"><label for="request">Add a special request (optional)</label><textarea id="request" name="request">${v.request ?? ''}</textarea></div>
<p><label><input type="checkbox" name="offers" value="yes"> Sign me up to receive dining offers and news from Tavola</label></p>
<button class="cta" type="submit">Continue</button></form>`);
}

const GUEST_NAMES = { firstName: 'given_name', lastName: 'family_name', phone: 'tel', email: 'email', request: 'special_requests' };

function review(b: Booking): string {
  const g = b.guest!;
  return layout('Review your reservation', html`<h1>Review your reservation</h1>${summary(b)}
<dl><dt>Diner</dt><dd>${g.givenName} ${g.familyName}</dd><dt>Email</dt><dd>${g.email}</dd><dt>Payment</dt><dd>${CARD}</dd></dl>
<form method="post" action="/booking/${b.id}/review"><button class="cta" type="submit">Continue to payment</button></form>`);
}

function payment(b: Booking, error?: string): string {
  if (expired(b)) return layout('Hold expired', html`<h1>Your table is no longer held</h1><p role="alert">The hold expired. Please search again.</p>`);
  return layout('Secure your reservation', html`<h1>Secure your reservation</h1>${summary(b)}
<form method="post" action="/booking/${b.id}/payment"><p>Card on file: <strong>${CARD}</strong></p>
<div class="field"><label for="cvc">CVC</label><input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric" maxlength="4"${error ? raw(' aria-invalid="true" aria-describedby="cvc-err"') : ''}>${error ? html`<span class="err" id="cvc-err" role="alert">${error}</span>` : ''}</div>
<button class="cta" type="submit">Pay ${money(b.option.total, 'USD')} deposit</button></form>`);
}

function confirmed(b: Booking): string {
  const q = venue(b.search);
  const g = b.guest!;
  const ld = jsonLd({
    '@context': 'https://schema.org', '@type': 'FoodEstablishmentReservation', reservationNumber: b.confirmation!.code, reservationStatus: 'https://schema.org/ReservationConfirmed',
    underName: { '@type': 'Person', name: `${g.givenName} ${g.familyName}` }, reservationFor: { '@type': 'FoodEstablishment', name: q.restaurantName, address: { '@type': 'PostalAddress', addressLocality: q.city } },
    startTime: `${q.date}T${b.option.time}:00`, partySize: q.partySize,
  });
  return layout('Reservation confirmed', html`<h1>Reservation confirmed</h1><p>Confirmation #: <strong>${b.confirmation!.code}</strong></p>${summary(b)}`, ld);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') {
    const values: Record<string, string> = {};
    for (const k of Object.keys(SEARCH_NAMES)) values[k] = req.query.get(k) ?? '';
    return ok(home({ values, errors: {} }));
  }
  if (method === 'GET' && path === '/s') {
    const values: Record<string, string> = {};
    for (const [k, std] of Object.entries(SEARCH_NAMES)) values[std] = (req.query.get(k) ?? '').trim();
    const r = search(ctx, values);
    if (!r.record) {
      const back = Object.fromEntries(Object.entries(SEARCH_NAMES).map(([a, b]) => [b, a]));
      const form: FormState = { values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} };
      for (const [k, e] of Object.entries(r.form.errors)) form.errors[back[k] ?? k] = e;
      return htmlRes(422, home(form));
    }
    if (r.record.behaviour === 'members') return redirect(`/login?return=${encodeURIComponent(`/restaurant/${r.record.id}`)}`);
    return redirect(`/restaurant/${r.record.id}`);
  }
  if (path === '/login') {
    const returnTo = (method === 'POST' ? req.form.get('return') : req.query.get('return')) ?? '/';
    return method === 'POST' ? htmlRes(401, signIn(returnTo, 'That email and password combination doesn\u2019t match our records.')) : ok(signIn(returnTo));
  }
  if ((m = /^\/restaurant\/([^/]+)(\/hold|\/verify)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout('Not found', html`<h1>This search has expired</h1><p><a href="/">Search again</a></p>`));
    if (s.behaviour === 'members') return redirect(`/login?return=${encodeURIComponent(`/restaurant/${s.id}`)}`);
    if (m[2] === '/verify' && method === 'POST') return htmlRes(403, results(s, 'Please complete the verification.'));
    if (m[2] === '/hold' && method === 'POST') {
      const b = hold(ctx, s, req.form.get('slot') ?? '');
      if (typeof b === 'string') return htmlRes(409, results(s, b));
      return redirect(`/booking/${b.id}`);
    }
    if (method === 'GET' && !m[2]) return ok(results(s));
  }
  if ((m = /^\/booking\/([^/]+)(\/review|\/payment|\/confirmed)?$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout('Not found', html`<h1>Reservation not found</h1>`));
    const step = m[2] ?? '';
    if (b.confirmation && step !== '/confirmed') return redirect(`/booking/${b.id}/confirmed`);
    if (step === '') {
      if (method === 'POST') {
        const form = guest(b, req.form, GUEST_NAMES);
        return form ? htmlRes(422, details(b, form)) : redirect(`/booking/${b.id}/review`);
      }
      const g = b.guest;
      return ok(details(b, { values: g ? { firstName: g.givenName, lastName: g.familyName, phone: g.tel, email: g.email, request: g.specialRequests } : {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/booking/${b.id}`);
    if (step === '/review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/booking/${b.id}/payment`);
      }
      return ok(review(b));
    }
    if (step === '/payment') {
      if (!b.reviewed) return redirect(`/booking/${b.id}/review`);
      if (method === 'POST') {
        const e = pay(ctx, b, req.form.get('cvc') ?? '', () => code.digits(8));
        return e ? htmlRes(expired(b) ? 410 : 422, payment(b, e)) : redirect(`/booking/${b.id}/confirmed`);
      }
      return ok(payment(b));
    }
    if (step === '/confirmed') return b.confirmation ? ok(confirmed(b)) : redirect(`/booking/${b.id}/payment`);
  }
  return htmlRes(404, layout('Not found', html`<h1>Page not found</h1><p><a href="/">Tavola home</a></p>`));
}
