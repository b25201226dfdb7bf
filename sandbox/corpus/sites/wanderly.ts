/**
 * Wanderly — tours and activities in the GetYourGuide style: a cookie banner
 * (Necessary only / Accept all), a search that lists activity cards (the one
 * asked for among others), an activity page with a participants stepper and an
 * inline date picker (a month of day buttons named by date), options as cards,
 * a single "Full name" field, then review and payment. Confirmation: only a
 * visible "Booking reference".
 */
import { calendarScript } from '../calendar.ts';
import { code, expired, gate, guest, hold, pay, search, type SiteCtx } from '../core.ts';
import { captchaWidget, html, htmlRes, longDate, money, ok, page, raw, redirect, time12, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { ActivitySearch, Booking, FormState, SearchRecord } from '../../engine/types.ts';

const CARD = 'Visa •••• 4242';
const CSS = `body{font-family:"GT Eesti",Helvetica,sans-serif;margin:0;color:#1a2b49;padding-bottom:120px}header{padding:14px 24px;font-size:22px;font-weight:700;color:#ff5533;border-bottom:1px solid #eee}
main{max-width:860px;margin:20px auto;padding:0 16px}.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:14px;list-style:none;padding:0}.card{border:1px solid #dcdfe4;border-radius:12px;padding:14px}
.btn{background:#0071eb;color:#fff;border:0;border-radius:24px;padding:10px 20px}.cal-days{display:grid;grid-template-columns:repeat(7,1fr);list-style:none;padding:0;gap:4px}.cal-day{width:100%;padding:6px}
.cal-day[aria-current=date]{background:#0071eb;color:#fff}.step{display:flex;gap:10px;align-items:center}.err{color:#d32f2f}label{display:block;margin-top:8px}
#cookie-banner{position:fixed;left:0;right:0;bottom:0;background:#1a2b49;color:#fff;padding:18px 24px;z-index:50}`;

function banner(req: Req): SafeHtml {
  if (req.cookies.wl_cookies) return raw('');
  return html`<section id="cookie-banner" aria-label="Cookie consent"><p>We use cookies to give you the best experience, to measure our site and to show you relevant ads. <a href="#">Cookie policy</a></p>
<button type="button" class="btn" data-c="necessary">Necessary only</button> <button type="button" class="btn" data-c="all">Accept all</button></section>
<script>document.querySelectorAll('#cookie-banner [data-c]').forEach(function(b){b.onclick=function(){document.cookie='wl_cookies='+b.dataset.c+'; path=/';document.getElementById('cookie-banner').remove();};});</script>`;
}

function layout(req: Req, title: string, body: SafeHtml): string {
  return page({ title: `${title} – Wanderly`, css: CSS, body: html`<header>wanderly</header><main>${body}</main>${banner(req)}` });
}
function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<p class="err" id="${n}-error" role="alert">${form.errors[n]}</p>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-error"`) : raw('');
}

function home(req: Req, form: FormState): string {
  const v = form.values;
  return layout(req, 'Things to do', html`<h1>Discover and book things to do</h1><form method="get" action="/s" role="search">
<label for="location">Where are you going?</label><input id="location" name="location" value="${v.location ?? ''}" autocomplete="address-level2"${inv(form, 'location')}>${e(form, 'location')}
<label for="activity">What do you want to do?</label><input id="activity" name="activity" value="${v.activity ?? ''}"${inv(form, 'activity')}>${e(form, 'activity')}
<p><button class="btn" type="submit">Search</button></p></form>`);
}

const DECOYS = ['Old Town walking tour', 'Food and wine tasting'];

function listing(req: Req, name: string, city: string): string {
  const q = (n: string) => new URLSearchParams({ name: n, city }).toString();
  return layout(req, `Things to do in ${city}`, html`<h1>${city}: ${DECOYS.length + 1} activities found</h1><ul class="cards">
${[name, ...DECOYS].map((n, i) => html`<li class="card"><h2><a href="/activity?${q(n)}">${n}</a></h2><p>${i === 0 ? 'Top rated' : 'Likely to sell out'} · Free cancellation</p><p>From ${money(3000 + i * 1500, 'EUR')} per person</p></li>`)}</ul>`);
}

function activity(req: Req, name: string, city: string, form: FormState, s?: SearchRecord, message?: string): string {
  const v = form.values;
  const adults = Number(v.adults) || 2;
  const base = new URLSearchParams({ name, city }).toString();
  let options: SafeHtml = raw('');
  if (s) {
    const g = gate(s);
    const q = s.query as ActivitySearch;
    if (g === 'captcha') options = html`<section><h2>Verify you are human</h2>${captchaWidget('turnstile')}</section>`;
    else if (g === 'members') options = html`<section><h2>Log in to book this experience</h2><p>This experience is offered to Wanderly members only.</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/login"><input type="hidden" name="sid" value="${s.id}"><label for="lg-email">Email</label><input id="lg-email" name="email" type="email" autocomplete="username"><label for="lg-pw">Password</label><input id="lg-pw" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Log in</button></p></form></section>`;
    else if (g === 'sold-out') options = html`<div role="alert"><strong>No availability on ${longDate(q.eventDate)}.</strong> Try another date.</div>`;
    else options = html`<h2>Choose an option</h2>${message ? html`<p class="err" role="alert">${message}</p>` : ''}<ul class="cards">${s.options.map((o) => html`<li class="card"><h3>${o.title}</h3><p>${o.description ?? ''}</p><p>Starting time: ${time12(o.startTime ?? '19:30')}</p>
<p>${q.tickets} adult${q.tickets === 1 ? '' : 's'} × ${money(o.unitPrice, 'EUR')}</p><p>Total: <strong>${money(o.total, 'EUR')}</strong></p>
${o.available ? html`<form method="post" action="/book"><input type="hidden" name="sid" value="${s.id}"><button class="btn" type="submit" name="option" value="${o.id}">Book now</button></form>` : html`<p>Sold out</p>`}</li>`)}</ul>`;
  }
  return layout(req, name, html`<h1>${name}</h1><p>${city} · Duration 2 hours · Skip the line</p>
<form method="get" action="/activity" aria-labelledby="avail-h"><h2 id="avail-h">Select participants and date</h2><input type="hidden" name="name" value="${name}"><input type="hidden" name="city" value="${city}">
<span id="adults-l">Adults (age 12–99)</span><div class="step" role="group" aria-labelledby="adults-l"><button type="button" aria-label="Decrease Adults" data-d="-1">−</button><span id="adults-v">${adults}</span><input type="hidden" name="adults" value="${adults}"><button type="button" aria-label="Increase Adults" data-d="1">+</button></div>${e(form, 'adults')}
<p id="date-l">Date: <span id="date-shown">${v.date ? longDate(v.date) : 'Select a date'}</span></p><input type="hidden" id="date" name="date" value="${v.date ?? ''}"><div role="group" aria-labelledby="date-l"><div id="date-cal"></div></div>${e(form, 'date')}
<p><button class="btn" type="submit">Check availability</button></p></form>
<script>document.querySelectorAll('.step button').forEach(function(b){b.onclick=function(){var i=document.querySelector('input[name=adults]');i.value=Math.min(10,Math.max(1,+i.value+ +b.dataset.d));document.getElementById('adults-v').textContent=i.value;};});</script>
${calendarScript({ input: 'date', container: 'date-cal', display: 'date-shown', locale: 'en-GB', grid: false, closeOnPick: false })}
<div id="options">${options}</div><p><a href="/s?${base.replace('name=', 'activity=').replace('city=', 'location=')}">Back to results</a></p>`);
}

function summary(b: Booking): SafeHtml {
  const q = b.search.query as ActivitySearch;
  return html`<section class="card" aria-labelledby="sum-h"><h2 id="sum-h">${q.eventName}</h2><p>${q.city}</p><p>${longDate(q.eventDate)}, ${time12(b.option.startTime ?? '19:30')}</p>
<p>Option: ${b.option.title}</p><p>${q.tickets} adult${q.tickets === 1 ? '' : 's'}</p><p>Total price: <strong>${money(b.option.total, 'EUR')}</strong></p></section>`;
}

function details(req: Req, b: Booking, form: FormState): string {
  const v = form.values;
  return layout(req, 'Personal details', html`${summary(b)}<form method="post" action="/checkout/${b.id}/details"><h1>Personal details</h1>
<label for="fullname">Full name</label><input id="fullname" name="fullname" autocomplete="name" value="${v.fullname ?? ''}"${inv(form, 'fullname')}>${e(form, 'fullname')}
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email" value="${v.email ?? ''}"${inv(form, 'email')}>${e(form, 'email')}
<label for="phone">Mobile phone number</label><input id="phone" name="phone" type="tel" autocomplete="tel" value="${v.phone ?? ''}"${inv(form, 'phone')}>${e(form, 'phone')}
<p><label><input type="checkbox" name="newsletter" value="1"> Get travel inspiration by email</label></p><button class="btn" type="submit">Go to review</button></form>`);
}

function review(req: Req, b: Booking): string {
  const g = b.guest!;
  return layout(req, 'Review', html`<h1>Review your booking</h1>${summary(b)}<p>Lead traveller: ${g.givenName} ${g.familyName} · ${g.email}</p><p>Payment method: ${CARD}</p>
<form method="post" action="/checkout/${b.id}/review"><button class="btn" type="submit">Continue to payment</button></form>`);
}

function payment(req: Req, b: Booking, error?: string): string {
  if (expired(b)) return layout(req, 'Expired', html`<h1>Your reservation has expired</h1><p role="alert">Please choose a date again.</p>`);
  return layout(req, 'Payment', html`${summary(b)}<form method="post" action="/checkout/${b.id}/payment"><h1>Payment</h1><p>Saved card: <strong>${CARD}</strong></p>
<label for="cvv2">CVC</label><input id="cvv2" name="cvv2" autocomplete="cc-csc" inputmode="numeric" maxlength="4"${error ? raw(' aria-invalid="true" aria-describedby="cvv2-error"') : ''}>${error ? html`<p class="err" id="cvv2-error" role="alert">${error}</p>` : ''}
<p><button class="btn" type="submit">Pay now</button></p></form>`);
}

function done(req: Req, b: Booking): string {
  return layout(req, 'Booking confirmed', html`<h1>You\u2019re all set!</h1><p>Booking reference: <strong>${b.confirmation!.code}</strong></p>${summary(b)}<p>Show your voucher on your phone.</p>`);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') return ok(home(req, { values: { location: req.query.get('location') ?? '', activity: req.query.get('activity') ?? '' }, errors: {} }));
  if (method === 'GET' && path === '/s') {
    const location = (req.query.get('location') ?? '').trim();
    const act = (req.query.get('activity') ?? '').trim();
    const errors: Record<string, string> = {};
    if (!location) errors.location = 'Enter a destination.';
    if (!act) errors.activity = 'Enter an activity.';
    if (Object.keys(errors).length) return htmlRes(422, home(req, { values: { location, activity: act }, errors }));
    return ok(listing(req, act, location));
  }
  if (method === 'GET' && path === '/activity') {
    const name = (req.query.get('name') ?? '').trim();
    const city = (req.query.get('city') ?? '').trim();
    if (!name || !city) return redirect('/');
    const date = req.query.get('date');
    const adults = req.query.get('adults');
    if (date === null || adults === null) return ok(activity(req, name, city, { values: {}, errors: {} }));
    const values = { date, adults };
    if (!date) return htmlRes(422, activity(req, name, city, { values, errors: { date: 'Select a date.' } }));
    const r = search(ctx, { event_name: name, city, event_date: date, tickets: adults, seat_type: '' });
    if (!r.record) return htmlRes(422, activity(req, name, city, { values, errors: { date: r.form.errors.event_date ?? '', adults: r.form.errors.tickets ?? '' } }));
    return ok(activity(req, name, city, { values, errors: {} }, r.record));
  }
  if (method === 'POST' && path === '/login') {
    const s = ctx.store.searches.get(req.form.get('sid') ?? '');
    if (!s) return redirect('/');
    const q = s.query as ActivitySearch;
    return htmlRes(401, activity(req, q.eventName, q.city, { values: { date: q.eventDate, adults: String(q.tickets) }, errors: {} }, s, 'Wrong email or password.'));
  }
  if (method === 'POST' && path === '/book') {
    const s = ctx.store.searches.get(req.form.get('sid') ?? '');
    if (!s) return redirect('/');
    const b = hold(ctx, s, req.form.get('option') ?? '');
    if (typeof b === 'string') {
      const q = s.query as ActivitySearch;
      return htmlRes(409, activity(req, q.eventName, q.city, { values: { date: q.eventDate, adults: String(q.tickets) }, errors: {} }, s, b));
    }
    return redirect(`/checkout/${b.id}/details`);
  }
  if ((m = /^\/checkout\/([^/]+)\/(details|review|payment|confirmation)$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout(req, 'Not found', html`<h1>Booking not found</h1>`));
    const step = m[2];
    if (b.confirmation && step !== 'confirmation') return redirect(`/checkout/${b.id}/confirmation`);
    if (step === 'details') {
      if (method === 'POST') {
        const full = (req.form.get('fullname') ?? '').trim().replace(/\s+/g, ' ');
        const cut = full.lastIndexOf(' ');
        const params = new URLSearchParams({ given_name: cut > 0 ? full.slice(0, cut) : full, family_name: cut > 0 ? full.slice(cut + 1) : '', email: req.form.get('email') ?? '', tel: req.form.get('phone') ?? '' });
        const form = guest(b, params, { email: 'email', phone: 'tel' });
        if (!form) return redirect(`/checkout/${b.id}/review`);
        const errors: Record<string, string> = {};
        if (form.errors.given_name || form.errors.family_name) errors.fullname = 'Enter your first and last name.';
        if (form.errors.email) errors.email = form.errors.email;
        if (form.errors.tel) errors.phone = form.errors.tel;
        return htmlRes(422, details(req, b, { values: Object.fromEntries(req.form), errors }));
      }
      return ok(details(req, b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/checkout/${b.id}/details`);
    if (step === 'review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/checkout/${b.id}/payment`);
      }
      return ok(review(req, b));
    }
    if (step === 'payment') {
      if (!b.reviewed) return redirect(`/checkout/${b.id}/review`);
      if (method === 'POST') {
        const err = pay(ctx, b, req.form.get('cvv2') ?? '', () => `WND-${code.letters(6)}`);
        return err ? htmlRes(expired(b) ? 410 : 422, payment(req, b, err)) : redirect(`/checkout/${b.id}/confirmation`);
      }
      return ok(payment(req, b));
    }
    if (step === 'confirmation') return b.confirmation ? ok(done(req, b)) : redirect(`/checkout/${b.id}/payment`);
  }
  return htmlRes(404, layout(req, 'Not found', html`<h1>Page not found</h1>`));
}
