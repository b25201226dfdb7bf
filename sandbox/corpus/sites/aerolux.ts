/**
 * Aerolux — an airline's own site across subdomains: the bare host redirects
 * to www., the search on www. redirects to book. (flights in a table,
 * passengers with passport details and a birth date as three selects, review),
 * and the card security code is typed into an iframe served by pay. (another
 * origin), whose Pay sends the whole window back to book. for the confirmation.
 * Confirmation: schema.org FlightReservation and a visible "Booking reference".
 */
import { code, expired, gate, guest, hold, pay, search, type SiteCtx } from '../core.ts';
import { CABIN_LABELS, captchaWidget, COUNTRIES, countryName, duration, html, htmlRes, jsonLd, longDate, money, ok, page, raw, redirect, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { Booking, FlightSearch, FormState, SearchRecord } from '../../engine/types.ts';

const CARD = 'Visa •••• 4242 (expires 08/29)';
const CSS = `body{font-family:"Segoe UI",Roboto,sans-serif;margin:0;color:#0b1f33;background:#f4f7fb}header{background:#0b1f33;color:#fff;padding:14px 28px;font-size:21px;letter-spacing:.05em}
main{max-width:900px;margin:20px auto;padding:0 16px}fieldset{border:1px solid #c5d3e3;margin:12px 0;padding:12px}label{display:block;margin-top:8px}
table{border-collapse:collapse;width:100%;background:#fff}th,td{padding:8px;border-bottom:1px solid #dde5ee;text-align:left}.btn{background:#c8102e;color:#fff;border:0;padding:10px 18px;border-radius:2px}.err{color:#c8102e}
iframe.pay{width:100%;height:190px;border:1px solid #c5d3e3;background:#fff}`;

function layout(title: string, body: SafeHtml, head?: SafeHtml): string {
  return page({ title: `${title} | Aerolux`, css: CSS, head, body: html`<header>AEROLUX</header><main>${body}</main>` });
}
function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<span class="err" id="${n}-error" role="alert">${form.errors[n]}</span>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-error"`) : raw('');
}
const opt = (value: string, label: string, current: string) => html`<option value="${value}"${raw(value === current ? ' selected' : '')}>${label}</option>`;

const SEARCH_NAMES: Record<string, string> = { from: 'origin', to: 'destination', depart: 'date', adults: 'passengers', cabin: 'cabin' };
const AIRPORTS = ['Lisbon (LIS)', 'London Heathrow (LHR)', 'Paris Charles de Gaulle (CDG)', 'Madrid (MAD)', 'New York JFK (JFK)', 'Frankfurt (FRA)', 'Rome Fiumicino (FCO)'];

function home(form: FormState): string {
  const v = form.values;
  return layout('Book a flight', html`<h1>Where would you like to go?</h1>
<form method="post" action="/flights/search"><fieldset><legend>Trip type</legend><label><input type="radio" name="trip" value="oneway" checked> One way</label><label><input type="radio" name="trip" value="return"> Return</label></fieldset>
<label for="from">From</label><input id="from" name="from" list="airports" value="${v.from ?? ''}"${inv(form, 'from')}>${e(form, 'from')}
<label for="to">To</label><input id="to" name="to" list="airports" value="${v.to ?? ''}"${inv(form, 'to')}>${e(form, 'to')}
<datalist id="airports">${AIRPORTS.map((a) => html`<option value="${a}">`)}</datalist>
<label for="depart">Departure date</label><input id="depart" name="depart" type="date" value="${v.depart ?? ''}"${inv(form, 'depart')}>${e(form, 'depart')}
<label for="adults">Passengers</label><select id="adults" name="adults">${[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => opt(String(n), `${n} adult${n === 1 ? '' : 's'}`, v.adults || '1'))}</select>
<label for="cabin">Cabin</label><select id="cabin" name="cabin">${Object.entries(CABIN_LABELS).map(([k, l]) => opt(k, l, v.cabin || 'economy'))}</select>
<p><button class="btn" type="submit">Search flights</button></p></form>`);
}

function fq(s: SearchRecord): FlightSearch {
  return s.query as FlightSearch;
}

function availability(s: SearchRecord, message?: string): string {
  const q = fq(s);
  const g = gate(s);
  if (g === 'captcha') return layout('Security check', html`<h1>Security check</h1><p>To protect our fares from automated bots, please confirm you are not a robot.</p>${captchaWidget('recaptcha')}`);
  if (g === 'members') {
    return layout('Log in', html`<h1>Log in to Aerolux Club</h1><p>This route is sold to Aerolux Club members only.</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/availability/${s.id}/login"><label for="club">Club number</label><input id="club" name="club" autocomplete="username"><label for="club-pw">Password</label><input id="club-pw" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Log in</button></p></form>`);
  }
  const head = html`<h1>${q.origin} to ${q.destination}</h1><p>${longDate(q.date)} · ${q.passengers} passenger${q.passengers === 1 ? '' : 's'} · ${CABIN_LABELS[q.cabin || 'economy']}</p>`;
  if (g === 'sold-out') return layout('No flights', html`${head}<div role="alert"><h2>No flights available</h2><p>There are no seats left on this date. Please choose another date.</p></div>`);
  return layout('Choose a flight', html`${head}${message ? html`<p class="err" role="alert">${message}</p>` : ''}<form method="post" action="/availability/${s.id}/select">
<table><caption>Outbound flights</caption><thead><tr><th scope="col">Flight</th><th scope="col">Departs</th><th scope="col">Arrives</th><th scope="col">Duration</th><th scope="col">Fare per passenger</th><th scope="col">Total</th><th scope="col"></th></tr></thead><tbody>
${s.options.map((o) => html`<tr><th scope="row">${o.flightNumber}</th><td>${o.time}</td><td>${o.arrival}${o.arrivesNextDay ? ' (+1)' : ''}</td><td>${duration(o.durationMinutes ?? 0)}</td><td>${money(o.unitPrice, 'EUR')}</td><td>${money(o.total, 'EUR')}</td>
<td>${o.available ? html`<button class="btn" type="submit" name="flight" value="${o.id}" aria-label="Select ${o.flightNumber} departing ${o.time}">Select</button>` : html`Sold out`}</td></tr>`)}</tbody></table></form>`);
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function passengers(b: Booking, form: FormState): string {
  const q = fq(b.search);
  const v = form.values;
  const pax = Array.from({ length: q.passengers }, (_, i) => i + 1).map((n) => {
    const k = (f: string) => `pax${n}_${f}`;
    const sec = `section-pax${n}`;
    return html`<fieldset><legend>Passenger ${n} (adult)${n === 1 ? ' — lead passenger' : ''}</legend>
<label for="${k('title')}">Title</label><select id="${k('title')}" name="${k('title')}" autocomplete="${sec} honorific-prefix">${['Mr', 'Ms', 'Mrs', 'Mx', 'Dr'].map((t) => opt(t, t, v[k('title')] ?? 'Mr'))}</select>
<label for="${k('first')}">First name(s)</label><input id="${k('first')}" name="${k('first')}" autocomplete="${sec} given-name" value="${v[k('first')] ?? ''}"${inv(form, k('first'))}>${e(form, k('first'))}
<label for="${k('last')}">Surname</label><input id="${k('last')}" name="${k('last')}" autocomplete="${sec} family-name" value="${v[k('last')] ?? ''}"${inv(form, k('last'))}>${e(form, k('last'))}
<fieldset><legend>Date of birth</legend>
<label for="${k('dob_day')}">Day</label><select id="${k('dob_day')}" name="${k('dob_day')}" autocomplete="${sec} bday-day"><option value="">DD</option>${Array.from({ length: 31 }, (_, i) => String(i + 1).padStart(2, '0')).map((d) => opt(d, String(Number(d)), v[k('dob_day')] ?? ''))}</select>
<label for="${k('dob_month')}">Month</label><select id="${k('dob_month')}" name="${k('dob_month')}" autocomplete="${sec} bday-month"><option value="">MM</option>${MONTHS.map((mn, i) => opt(String(i + 1).padStart(2, '0'), mn, v[k('dob_month')] ?? ''))}</select>
<label for="${k('dob_year')}">Year</label><select id="${k('dob_year')}" name="${k('dob_year')}" autocomplete="${sec} bday-year"><option value="">YYYY</option>${Array.from({ length: 110 }, (_, i) => String(new Date().getUTCFullYear() - i)).map((y) => opt(y, y, v[k('dob_year')] ?? ''))}</select>
${e(form, k('dob'))}</fieldset>
<label for="${k('nationality')}">Nationality</label><select id="${k('nationality')}" name="${k('nationality')}" autocomplete="${sec} country"><option value="">Select</option>${COUNTRIES.map(([c, nm]) => opt(c, nm, v[k('nationality')] ?? ''))}</select>
<label for="${k('passport')}">Passport number</label><input id="${k('passport')}" name="${k('passport')}" value="${v[k('passport')] ?? ''}" autocomplete="off"${inv(form, k('passport'))}>${e(form, k('passport'))}
<label for="${k('issuer')}">Passport issuing country</label><select id="${k('issuer')}" name="${k('issuer')}"${inv(form, k('issuer'))}><option value="">Select</option>${COUNTRIES.map(([c, nm]) => opt(c, nm, v[k('issuer')] ?? ''))}</select>${e(form, k('issuer'))}
</fieldset>`;
  });
  return layout('Passengers', html`<h1>Passenger details</h1><p>Enter names exactly as they appear in each passport.</p><form method="post" action="/booking/${b.id}/passengers">${pax}
<fieldset><legend>Contact details</legend><label for="contact_email">Email</label><input id="contact_email" name="contact_email" type="email" autocomplete="email" value="${v.contact_email ?? ''}"${inv(form, 'contact_email')}>${e(form, 'contact_email')}
<label for="contact_mobile">Mobile phone</label><input id="contact_mobile" name="contact_mobile" type="tel" autocomplete="tel" value="${v.contact_mobile ?? ''}"${inv(form, 'contact_mobile')}>${e(form, 'contact_mobile')}</fieldset>
<p><button class="btn" type="submit">Continue</button></p></form>`);
}

/** The site's field names → the standard ones; the birth date is put together from its three selects. */
function standardPassengers(b: Booking, form: URLSearchParams): { params: URLSearchParams; names: Record<string, string> } {
  const q = fq(b.search);
  const params = new URLSearchParams(form);
  const names: Record<string, string> = { contact_email: 'email', contact_mobile: 'tel' };
  for (let n = 1; n <= q.passengers; n++) {
    names[`pax${n}_first`] = `p${n}_given_name`;
    names[`pax${n}_last`] = `p${n}_family_name`;
    names[`pax${n}_passport`] = `p${n}_passport_number`;
    names[`pax${n}_issuer`] = `p${n}_passport_country`;
    names[`pax${n}_dob`] = `p${n}_birth_date`;
    const [d, mo, y] = ['day', 'month', 'year'].map((f) => form.get(`pax${n}_dob_${f}`) ?? '');
    params.set(`pax${n}_dob`, d && mo && y ? `${y}-${mo}-${d}` : '');
  }
  return { params, names };
}

function trip(b: Booking): SafeHtml {
  const q = fq(b.search);
  const o = b.option;
  return html`<section aria-labelledby="trip-h"><h2 id="trip-h">Your flight</h2><table><tbody>
<tr><th scope="row">Flight</th><td>${o.flightNumber} · ${o.carrier}</td></tr><tr><th scope="row">Route</th><td>${q.origin} → ${q.destination}</td></tr>
<tr><th scope="row">Date</th><td>${longDate(q.date)}</td></tr><tr><th scope="row">Departs</th><td>${o.time}</td></tr><tr><th scope="row">Arrives</th><td>${o.arrival}${o.arrivesNextDay ? ' (next day)' : ''}</td></tr>
<tr><th scope="row">Passengers</th><td>${q.passengers}</td></tr><tr><th scope="row">Cabin</th><td>${CABIN_LABELS[o.cabin ?? 'economy']}</td></tr><tr><th scope="row">Total price</th><td>${money(o.total, 'EUR')}</td></tr></tbody></table></section>`;
}

function review(b: Booking): string {
  const g = b.guest!;
  return layout('Review your trip', html`<h1>Review your trip</h1>${trip(b)}<h2>Passengers</h2><ol>${g.passengers.map((p) => html`<li>${p.givenName} ${p.familyName} — passport ${p.passportNumber} (${countryName(p.passportCountry)})</li>`)}</ol>
<p>Payment: ${CARD}</p><form method="post" action="/booking/${b.id}/review"><button class="btn" type="submit">Continue to payment</button></form>`);
}

function payment(b: Booking, ctx: SiteCtx): string {
  if (expired(b)) return layout('Expired', html`<h1>Your fare is no longer held</h1><p role="alert">Please search again.</p>`);
  return layout('Payment', html`<h1>Payment</h1>${trip(b)}<p>Pay with your saved card: <strong>${CARD}</strong></p>
<iframe class="pay" title="Secure payment" src="${ctx.origin('pay')}/hosted/${b.id}"></iframe>`);
}

function hostedCard(b: Booking, error?: string): string {
  return page({ title: 'Aerolux secure payment', css: 'body{font-family:sans-serif;margin:10px}.err{color:#c8102e}button{background:#c8102e;color:#fff;border:0;padding:9px 16px}',
    body: html`<form method="post" action="/hosted/${b.id}/charge" target="_top"><p>Visa •••• 4242</p><label for="cvc">Security code</label> <input id="cvc" name="cvc" autocomplete="cc-csc" inputmode="numeric" maxlength="4" size="5"${error ? raw(' aria-invalid="true" aria-describedby="cvc-error"') : ''}>
${error ? html`<p class="err" id="cvc-error" role="alert">${error}</p>` : ''}<p><button type="submit">Pay ${money(b.option.total, 'EUR')}</button></p></form>` });
}

function confirmation(b: Booking): string {
  const q = fq(b.search);
  const o = b.option;
  const ld = jsonLd({
    '@context': 'https://schema.org', '@type': 'FlightReservation', reservationNumber: b.confirmation!.code, reservationStatus: 'https://schema.org/ReservationConfirmed',
    underName: { '@type': 'Person', name: `${b.guest!.givenName} ${b.guest!.familyName}` },
    reservationFor: { '@type': 'Flight', flightNumber: o.flightNumber, airline: { '@type': 'Airline', name: o.carrier }, departureAirport: { '@type': 'Airport', name: q.origin }, arrivalAirport: { '@type': 'Airport', name: q.destination }, departureTime: `${q.date}T${o.time}:00` },
  });
  return layout('Booking confirmed', html`<h1>Your booking is confirmed</h1><p>Booking reference: <strong>${b.confirmation!.code}</strong></p>${trip(b)}`, ld);
}

export function handle(req: Req, ctx: SiteCtx, sub: string | null): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  const q = req.query.toString();
  if (sub === null) return { status: 301, headers: { location: `${ctx.origin('www')}${path}${q ? `?${q}` : ''}` }, body: '' };
  const notFound = () => htmlRes(404, layout('Not found', html`<h1>Page not found</h1><p><a href="${ctx.origin('www')}/">Aerolux home</a></p>`));
  if (sub === 'www') {
    if (method === 'GET' && path === '/') return ok(home({ values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} }));
    if (method === 'POST' && path === '/flights/search') {
      const values: Record<string, string> = { airline: 'Aerolux', departure_time: '' };
      for (const [k, std] of Object.entries(SEARCH_NAMES)) values[std] = (req.form.get(k) ?? '').trim();
      const r = search(ctx, values);
      if (!r.record) {
        const back = Object.fromEntries(Object.entries(SEARCH_NAMES).map(([a, b]) => [b, a]));
        const form: FormState = { values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.form.get(k) ?? ''])), errors: {} };
        for (const [k, msg] of Object.entries(r.form.errors)) form.errors[back[k] ?? k] = msg;
        return htmlRes(422, home(form));
      }
      return redirect(`${ctx.origin('book')}/availability/${r.record.id}`);
    }
    return notFound();
  }
  if (sub === 'pay') {
    if ((m = /^\/hosted\/([^/]+)(\/charge)?$/.exec(path))) {
      const b = ctx.store.bookings.get(m[1] ?? '');
      if (!b || !b.reviewed) return htmlRes(404, page({ title: 'Not found', css: '', body: html`<p>Payment session not found.</p>` }));
      if (m[2] && method === 'POST') {
        const err = pay(ctx, b, req.form.get('cvc') ?? '', () => code.letters(6));
        return err ? htmlRes(expired(b) ? 410 : 422, hostedCard(b, err)) : redirect(`${ctx.origin('book')}/booking/${b.id}/confirmation`);
      }
      if (!m[2] && method === 'GET') return b.confirmation ? ok(page({ title: 'Paid', css: '', body: html`<p>Paid.</p>` })) : ok(hostedCard(b));
    }
    return notFound();
  }
  if (sub !== 'book') return notFound();
  if ((m = /^\/availability\/([^/]+)(\/select|\/login)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout('Expired', html`<h1>Your search has expired</h1><p><a href="${ctx.origin('www')}/">Search again</a></p>`));
    if (m[2] === '/login' && method === 'POST') return htmlRes(401, availability(s, 'Your club number or password is incorrect.'));
    if (m[2] === '/select' && method === 'POST') {
      const b = hold(ctx, s, req.form.get('flight') ?? '');
      return typeof b === 'string' ? htmlRes(409, availability(s, b)) : redirect(`/booking/${b.id}/passengers`);
    }
    if (!m[2] && method === 'GET') return ok(availability(s));
  }
  if ((m = /^\/booking\/([^/]+)\/(passengers|review|payment|confirmation)$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return notFound();
    const step = m[2];
    if (b.confirmation && step !== 'confirmation') return redirect(`/booking/${b.id}/confirmation`);
    if (step === 'passengers') {
      if (method === 'POST') {
        const { params, names } = standardPassengers(b, req.form);
        const form = guest(b, params, names);
        if (!form) return redirect(`/booking/${b.id}/review`);
        for (const [k, val] of req.form) form.values[k] = val;
        return htmlRes(422, passengers(b, form));
      }
      return ok(passengers(b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/booking/${b.id}/passengers`);
    if (step === 'review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/booking/${b.id}/payment`);
      }
      return ok(review(b));
    }
    if (step === 'payment') return b.reviewed ? ok(payment(b, ctx)) : redirect(`/booking/${b.id}/review`);
    if (step === 'confirmation') return b.confirmation ? ok(confirmation(b)) : redirect(`/booking/${b.id}/payment`);
  }
  return notFound();
}
