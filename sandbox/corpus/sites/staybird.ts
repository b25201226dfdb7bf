/**
 * Staybird — a hotel site in the Booking.com style: a cookie wall before
 * anything else (Accept all / Reject all), a destination and property search
 * with an occupancy popover of +/− steppers, room offers as cards carrying
 * schema.org microdata (Hotel, Offer), "Enter your details", a check step,
 * then payment. Confirmation: schema.org LodgingReservation and a visible
 * "Booking number" with a PIN.
 */
import { code, expired, gate, guest, hold, minutesLeft, pay, search, type SiteCtx } from '../core.ts';
import { attr, captchaWidget, COUNTRIES, html, htmlRes, jsonLd, longDate, money, ok, page, raw, redirect, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { Booking, FormState, HotelSearch, SearchRecord } from '../../engine/types.ts';
import { daysBetween, hash } from '../../engine/inventory.ts';

const CARD = 'Mastercard ending in 5454';
const CSS = `body{font-family:BlinkMacSystemFont,-apple-system,Arial,sans-serif;margin:0;color:#1a1a1a}header{background:#003b95;color:#fff;padding:14px 24px;font-size:22px;font-weight:700}
main{max-width:900px;margin:20px auto;padding:0 16px}.bar{display:flex;gap:6px;background:#ffb700;padding:4px;border-radius:8px;flex-wrap:wrap}.bar>*{background:#fff;padding:8px;border-radius:4px}
.pop{position:absolute;background:#fff;box-shadow:0 2px 8px #0004;padding:14px;z-index:3}.step{display:flex;align-items:center;gap:10px;justify-content:space-between;margin:6px 0}
.step button{width:36px;height:36px;border:1px solid #006ce4;color:#006ce4;background:#fff}.cards{display:grid;gap:12px}.card{border:1px solid #ddd;border-radius:8px;padding:14px}
.btn{background:#006ce4;color:#fff;border:0;border-radius:4px;padding:10px 16px;font-size:15px}.err{color:#d4111e}
#consent{position:fixed;inset:0;background:rgba(0,0,0,.6);z-index:100;display:flex;align-items:center;justify-content:center}
#consent>div{background:#fff;max-width:520px;padding:24px;border-radius:8px}label{display:block;margin-top:10px}`;

function consentWall(req: Req): SafeHtml {
  if (req.cookies.sb_consent) return raw('');
  return html`<div id="consent"><div role="dialog" aria-modal="true" aria-labelledby="consent-title" aria-describedby="consent-text">
<h2 id="consent-title">We value your privacy</h2><p id="consent-text">We and our partners use cookies to improve your experience, for analytics and for personalised ads. You can accept all cookies, reject the optional ones, or manage your choices.</p>
<button type="button" class="btn" data-consent="accepted">Accept all</button> <button type="button" class="btn" data-consent="rejected">Reject all</button> <button type="button" data-consent="">Manage preferences</button></div></div>
<script>document.querySelectorAll('#consent [data-consent]').forEach(function(b){b.addEventListener('click',function(){if(!b.dataset.consent){b.textContent='Only necessary cookies can be chosen here';return;}document.cookie='sb_consent='+b.dataset.consent+'; path=/; SameSite=Lax';document.getElementById('consent').remove();});});</script>`;
}

function layout(req: Req, title: string, body: SafeHtml, head?: SafeHtml): string {
  return page({ title: `${title} · Staybird`, css: CSS, head, body: html`<header>Staybird.com</header><main>${body}</main>${consentWall(req)}` });
}

function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<span class="err" id="${n}-err" role="alert">${form.errors[n]}</span>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-err"`) : raw('');
}

function stepper(name: string, label: string, value: number, min: number, max: number): SafeHtml {
  return html`<div class="step" role="group" aria-labelledby="${name}-label"><span id="${name}-label">${label}</span>
<button type="button" aria-label="Decrease number of ${label}" data-step="${name}" data-delta="-1" data-min="${min}" data-max="${max}">−</button>
<span id="${name}-value" aria-live="polite">${value}</span><input type="hidden" name="${name}" value="${value}">
<button type="button" aria-label="Increase number of ${label}" data-step="${name}" data-delta="1" data-min="${min}" data-max="${max}">+</button></div>`;
}

function home(req: Req, form: FormState): string {
  const v = form.values;
  const adults = Number(v.group_adults) || 2;
  return layout(req, 'Find your next stay', html`<h1>Find your next stay</h1><p>Search low prices on hotels, homes and much more…</p>
<form action="/searchresults" method="get" class="bar" role="search">
 <div><label for="dest">Destination</label><input id="dest" name="dest" value="${v.dest ?? ''}" placeholder="Where are you going?"${inv(form, 'dest')}>${e(form, 'dest')}</div>
 <div><label for="ss">Property name</label><input id="ss" name="ss" value="${v.ss ?? ''}"${inv(form, 'ss')}>${e(form, 'ss')}</div>
 <div><label for="checkin">Check-in date</label><input id="checkin" name="checkin" type="date" value="${v.checkin ?? ''}"${inv(form, 'checkin')}>${e(form, 'checkin')}</div>
 <div><label for="checkout">Check-out date</label><input id="checkout" name="checkout" type="date" value="${v.checkout ?? ''}"${inv(form, 'checkout')}>${e(form, 'checkout')}</div>
 <div style="position:relative"><button type="button" id="occ-btn" aria-haspopup="true" aria-expanded="false" aria-controls="occ"><span id="occ-text">${adults} adults · 0 children · 1 room</span></button>
  <div id="occ" class="pop" hidden>${stepper('group_adults', 'Adults', adults, 1, 8)}${stepper('group_children', 'Children', 0, 0, 6)}${stepper('no_rooms', 'Rooms', 1, 1, 4)}<button type="button" id="occ-done" class="btn">Done</button></div>${e(form, 'group_adults')}</div>
 <button type="submit" class="btn">Search</button>
</form>
<script>(function(){var pop=document.getElementById('occ'),btn=document.getElementById('occ-btn');
function text(){var f=document.forms[0];btn.firstElementChild.textContent=f.group_adults.value+' adults · '+f.group_children.value+' children · '+f.no_rooms.value+' room'+(f.no_rooms.value==='1'?'':'s');}
btn.onclick=function(){pop.hidden=!pop.hidden;btn.setAttribute('aria-expanded',String(!pop.hidden));};
document.getElementById('occ-done').onclick=function(){pop.hidden=true;btn.setAttribute('aria-expanded','false');};
pop.querySelectorAll('[data-step]').forEach(function(b){b.onclick=function(){var n=b.dataset.step,inp=document.forms[0][n];var v=Math.min(+b.dataset.max,Math.max(+b.dataset.min,+inp.value+ +b.dataset.delta));inp.value=v;document.getElementById(n+'-value').textContent=v;text();};});})();</script>`);
}

const SEARCH_NAMES: Record<string, string> = { ss: 'hotel_name', dest: 'city', checkin: 'check_in', checkout: 'check_out', group_adults: 'adults' };

function hotelOf(s: SearchRecord): HotelSearch {
  return s.query as HotelSearch;
}

function property(req: Req, s: SearchRecord, message?: string): string {
  const q = hotelOf(s);
  const nights = daysBetween(q.checkIn, q.checkOut);
  const g = gate(s);
  if (g === 'captcha') {
    return layout(req, 'Security check', html`<h1>Let us know you\u2019re human</h1><p>We\u2019ve noticed unusual activity from your network. Complete the check to see prices.</p>${captchaWidget('hcaptcha')}`);
  }
  if (g === 'members') {
    return layout(req, 'Sign in', html`<h1>Sign in or create an account</h1><p>${q.hotelName} offers its rooms to Staybird members only. Sign in to see prices.</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/hotel/${s.id}/signin"><label for="username">Email address</label><input id="username" name="username" type="email" autocomplete="username"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Sign in</button></p></form>`);
  }
  const rooms = g === 'sold-out'
    ? html`<div role="alert" class="card"><strong>No availability</strong><p>This property has no rooms available on your dates. Try changing your dates.</p></div>`
    : html`<div class="cards">${s.options.map((o) => html`<article class="card" itemprop="makesOffer" itemscope itemtype="https://schema.org/Offer">
<h3 itemprop="name">${o.title}</h3><p itemprop="description">${o.description ?? ''}</p>${o.matchesPreference ? html`<p><strong>Matches your preference</strong></p>` : ''}
<p>Price for ${nights} night${nights === 1 ? '' : 's'}, ${q.adults} adult${q.adults === 1 ? '' : 's'}: <strong>${money(o.total, 'EUR')}</strong><meta itemprop="price" content="${(o.total / 100).toFixed(2)}"><meta itemprop="priceCurrency" content="EUR"></p>
${o.available
    ? html`<link itemprop="availability" href="https://schema.org/InStock"><form method="post" action="/hotel/${s.id}/reserve"><button class="btn" type="submit" name="room" value="${o.id}">I\u2019ll reserve</button></form>`
    : html`<link itemprop="availability" href="https://schema.org/SoldOut"><p class="err">Sold out on your dates</p>`}</article>`)}</div>`;
  return layout(req, q.hotelName, html`<div itemscope itemtype="https://schema.org/Hotel"><h1 itemprop="name">${q.hotelName}</h1>
<p itemprop="address" itemscope itemtype="https://schema.org/PostalAddress"><span itemprop="addressLocality">${q.city}</span></p>
<p>${longDate(q.checkIn)} – ${longDate(q.checkOut)} · ${q.adults} adults</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}<h2>Availability</h2>${rooms}</div>`);
}

function stay(b: Booking): SafeHtml {
  const q = hotelOf(b.search);
  const nights = daysBetween(q.checkIn, q.checkOut);
  return html`<section aria-labelledby="stay-h" class="card"><h2 id="stay-h">Your booking details</h2><p><strong>${q.hotelName}</strong>, ${q.city}</p>
<p>Check-in: ${longDate(q.checkIn)}</p><p>Check-out: ${longDate(q.checkOut)}</p><p>Total length of stay: ${nights} night${nights === 1 ? '' : 's'}</p>
<p>You selected: 1 room for ${q.adults} adults — ${b.option.title}</p><p>Price: <strong>${money(b.option.total, 'EUR')}</strong></p></section>`;
}

const GUEST_NAMES = { firstname: 'given_name', lastname: 'family_name', email: 'email', phone: 'tel', remarks: 'special_requests' };

function details(req: Req, b: Booking, form: FormState): string {
  const v = form.values;
  const f = (n: string, label: string, ac: string, type = 'text') => html`<label for="${n}">${label}</label><input id="${n}" name="${n}" type="${type}" autocomplete="${ac}" value="${v[n] ?? ''}"${inv(form, n)}>${e(form, n)}`;
  return layout(req, 'Your details', html`${stay(b)}<form method="post" action="/book/${b.id}/details" class="card"><h2>Enter your details</h2>
${f('firstname', 'First name', 'given-name')}${f('lastname', 'Last name', 'family-name')}${f('email', 'Email address', 'email', 'email')}
<label for="cc1">Country/region</label><select id="cc1" name="cc1" autocomplete="country">${COUNTRIES.map(([c, n]) => html`<option value="${c}"${attr('selected', c === (v.cc1 || 'GB'))}>${n}</option>`)}</select>
${f('phone', 'Phone number', 'tel', 'tel')}
<fieldset><legend>Who are you booking for?</legend><label><input type="radio" name="booker" value="self" checked> I\u2019m the main guest</label><label><input type="radio" name="booker" value="other"> I\u2019m booking for someone else</label></fieldset>
<label for="remarks">Special requests (optional)</label><textarea id="remarks" name="remarks">${v.remarks ?? ''}</textarea>
<p><label><input type="checkbox" name="deals" value="1"> Send me deals and travel inspiration</label></p>
<p><button class="btn" type="submit">Next: Final details</button></p></form>`);
}

function check(req: Req, b: Booking): string {
  const g = b.guest!;
  return layout(req, 'Check your booking', html`<h1>Check your booking</h1>${stay(b)}<section class="card"><h2>Guest</h2><p>${g.givenName} ${g.familyName} · ${g.email} · ${g.tel}</p>
<p>Payment method: ${CARD}</p><p>We\u2019re holding your room for ${minutesLeft(b)} minutes.</p></section>
<form method="post" action="/book/${b.id}/check"><button class="btn" type="submit">Next: Payment</button></form>`);
}

function payment(req: Req, b: Booking, error?: string): string {
  if (expired(b)) return layout(req, 'Expired', html`<h1>Your room is no longer held</h1><p role="alert">Please start a new search.</p>`);
  return layout(req, 'Payment', html`${stay(b)}<form method="post" action="/book/${b.id}/payment" class="card"><h2>How do you want to pay?</h2>
<p>Saved card: <strong>${CARD}</strong></p><label for="cvc">Security code</label><input id="cvc" name="card[cvc]" autocomplete="cc-csc" inputmode="numeric" size="4"${error ? raw(' aria-invalid="true" aria-describedby="cvc-err"') : ''}>${error ? html`<span class="err" id="cvc-err" role="alert">${error}</span>` : ''}
<p>You\u2019ll be charged ${money(b.option.total, 'EUR')} now.</p><button class="btn" type="submit">Complete booking</button></form>`);
}

function confirmation(req: Req, b: Booking): string {
  const q = hotelOf(b.search);
  const number = b.confirmation!.code;
  const pin = String(hash(b.id) % 10_000).padStart(4, '0');
  const ld = jsonLd({
    '@context': 'https://schema.org', '@type': 'LodgingReservation', reservationId: number, reservationStatus: 'https://schema.org/ReservationConfirmed',
    underName: { '@type': 'Person', name: `${b.guest!.givenName} ${b.guest!.familyName}` }, reservationFor: { '@type': 'LodgingBusiness', name: q.hotelName, address: { '@type': 'PostalAddress', addressLocality: q.city } },
    checkinTime: q.checkIn, checkoutTime: q.checkOut, numAdults: q.adults, totalPrice: (b.option.total / 100).toFixed(2), priceCurrency: 'EUR',
  });
  return layout(req, 'Booking confirmed', html`<h1>Your booking in ${q.city} is confirmed.</h1><p>Booking number: <strong>${number}</strong> · PIN code: ${pin}</p>${stay(b)}`, ld);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') {
    const values: Record<string, string> = {};
    for (const k of Object.keys(SEARCH_NAMES)) values[k] = req.query.get(k) ?? '';
    return ok(home(req, { values, errors: {} }));
  }
  if (method === 'GET' && path === '/searchresults') {
    const values: Record<string, string> = {};
    for (const [k, std] of Object.entries(SEARCH_NAMES)) values[std] = (req.query.get(k) ?? '').trim();
    const r = search(ctx, values);
    if (!r.record) {
      const back = Object.fromEntries(Object.entries(SEARCH_NAMES).map(([a, b]) => [b, a]));
      const form: FormState = { values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} };
      for (const [k, msg] of Object.entries(r.form.errors)) form.errors[back[k] ?? k] = msg;
      return htmlRes(422, home(req, form));
    }
    return redirect(`/hotel/${r.record.id}`);
  }
  if ((m = /^\/hotel\/([^/]+)(\/reserve|\/signin)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout(req, 'Not found', html`<h1>Your search has expired</h1><a href="/">Search again</a>`));
    if (m[2] === '/signin' && method === 'POST') return htmlRes(401, property(req, s, 'The email or password you entered is incorrect.'));
    if (m[2] === '/reserve' && method === 'POST') {
      const b = hold(ctx, s, req.form.get('room') ?? '');
      return typeof b === 'string' ? htmlRes(409, property(req, s, b)) : redirect(`/book/${b.id}/details`);
    }
    if (!m[2] && method === 'GET') return ok(property(req, s));
  }
  if ((m = /^\/book\/([^/]+)\/(details|check|payment|confirmation)$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout(req, 'Not found', html`<h1>Booking not found</h1>`));
    const step = m[2];
    if (b.confirmation && step !== 'confirmation') return redirect(`/book/${b.id}/confirmation`);
    if (step === 'details') {
      if (method === 'POST') {
        const form = guest(b, req.form, GUEST_NAMES);
        return form ? htmlRes(422, details(req, b, form)) : redirect(`/book/${b.id}/check`);
      }
      return ok(details(req, b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/book/${b.id}/details`);
    if (step === 'check') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/book/${b.id}/payment`);
      }
      return ok(check(req, b));
    }
    if (step === 'payment') {
      if (!b.reviewed) return redirect(`/book/${b.id}/check`);
      if (method === 'POST') {
        const err = pay(ctx, b, req.form.get('card[cvc]') ?? '', () => code.digits(10).replace(/^(\d{4})(\d{3})(\d{3})$/, '$1.$2.$3'));
        return err ? htmlRes(expired(b) ? 410 : 422, payment(req, b, err)) : redirect(`/book/${b.id}/confirmation`);
      }
      return ok(payment(req, b));
    }
    if (step === 'confirmation') return b.confirmation ? ok(confirmation(req, b)) : redirect(`/book/${b.id}/payment`);
  }
  return htmlRes(404, layout(req, 'Not found', html`<h1>Page not found</h1>`));
}
