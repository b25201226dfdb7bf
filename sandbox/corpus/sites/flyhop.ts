/**
 * FlyHop — an online travel agency for flights in the Expedia style: forms
 * checked in the browser first (error summary, messages under fields,
 * aria-invalid), travellers through a +/− stepper around a number input,
 * flights as a radio list, a fare-upsell modal dialog on Continue, a phone
 * number split into country code and number. Confirmation: schema.org
 * FlightReservation in microdata ("Itinerary #").
 */
import { code, expired, gate, guest, hold, pay, search, type SiteCtx } from '../core.ts';
import { CABIN_LABELS, COUNTRIES, duration, html, htmlRes, longDate, money, ok, page, raw, redirect, time12, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { Booking, FlightSearch, FormState, SearchRecord } from '../../engine/types.ts';

const CARD = 'Visa ending in 4242';
const FLEX_PER_TRAVELER = 4900;
const CSS = `body{font-family:Arial,sans-serif;margin:0;color:#191e3b}header{background:#191e3b;color:#fddb32;padding:12px 24px;font-size:22px;font-weight:700}
main{max-width:860px;margin:20px auto;padding:0 16px}label{display:block;margin-top:8px}.msg{color:#c60000;font-size:13px}.summary{border:2px solid #c60000;padding:8px;margin:8px 0}
.stepper{display:flex;gap:6px;align-items:center}.stepper input{width:3em;text-align:center}.flights{list-style:none;padding:0}.flights li{border:1px solid #ddd;border-radius:10px;margin:8px 0;padding:10px}
.btn{background:#1668e3;color:#fff;border:0;border-radius:20px;padding:10px 22px}dialog{border-radius:12px;max-width:420px}fieldset{margin:10px 0}`;

/** Client-side validation: required fields (data-required="message"), patterns (data-pattern + data-pattern-message). */
const VALIDATE = raw(`<script>document.querySelectorAll('form[data-validate]').forEach(function(form){form.addEventListener('submit',function(ev){
 form.querySelectorAll('.msg.client').forEach(function(m){m.remove();}); var bad=[];
 form.querySelectorAll('[data-required],[data-pattern]').forEach(function(inp){var v=inp.value.trim(),msg=null;
  if(inp.dataset.required&&!v) msg=inp.dataset.required; else if(v&&inp.dataset.pattern&&!new RegExp(inp.dataset.pattern).test(v)) msg=inp.dataset.patternMessage;
  if(msg){var d=document.createElement('div');d.className='msg client';d.id=inp.id+'-error';d.setAttribute('role','alert');d.textContent=msg;inp.insertAdjacentElement('afterend',d);inp.setAttribute('aria-invalid','true');inp.setAttribute('aria-describedby',d.id);bad.push(inp);}
  else {inp.removeAttribute('aria-invalid');inp.removeAttribute('aria-describedby');}});
 var sum=form.querySelector('.summary'); if(sum) sum.remove();
 if(bad.length){ev.preventDefault();ev.stopImmediatePropagation();var s=document.createElement('div');s.className='summary';s.setAttribute('role','alert');s.textContent='Please correct the '+bad.length+' error'+(bad.length>1?'s':'')+' below.';form.prepend(s);bad[0].focus();}
});});</script>`);

function layout(title: string, body: SafeHtml): string {
  return page({ title: `${title} | FlyHop`, css: CSS, body: html`<header>flyhop</header><main>${body}</main>${VALIDATE}` });
}
function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<div class="msg" id="${n}-error" role="alert">${form.errors[n]}</div>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-error"`) : raw('');
}
const opt = (value: string, label: string, current: string) => html`<option value="${value}"${raw(value === current ? ' selected' : '')}>${label}</option>`;

const SEARCH_NAMES: Record<string, string> = { from: 'origin', to: 'destination', date: 'date', travelers: 'passengers', cabin: 'cabin', airline: 'airline', time: 'departure_time' };

function home(form: FormState): string {
  const v = form.values;
  const n = Number(v.travelers) || 1;
  return layout('Cheap flights', html`<h1>Find cheap flights</h1><form method="get" action="/Flights-Search" novalidate data-validate>
${Object.keys(form.errors).length ? html`<div class="summary" role="alert">Please correct the errors below.</div>` : ''}
<label for="from">Leaving from</label><input id="from" name="from" value="${v.from ?? ''}" data-required="Please select an origin"${inv(form, 'from')}>${e(form, 'from')}
<label for="to">Going to</label><input id="to" name="to" value="${v.to ?? ''}" data-required="Please select a destination"${inv(form, 'to')}>${e(form, 'to')}
<label for="date">Departing</label><input id="date" name="date" type="date" value="${v.date ?? ''}" data-required="Please select a departure date"${inv(form, 'date')}>${e(form, 'date')}
<span id="trav-l" style="display:block;margin-top:8px">Travelers</span><div class="stepper" role="group" aria-labelledby="trav-l"><button type="button" aria-label="Decrease adults" data-d="-1">−</button>
<input id="travelers" name="travelers" type="number" min="1" max="9" value="${n}" aria-label="Adults" readonly><button type="button" aria-label="Increase adults" data-d="1">+</button></div>${e(form, 'travelers')}
<label for="cabin">Preferred class</label><select id="cabin" name="cabin">${Object.entries(CABIN_LABELS).map(([k, l]) => opt(k, l, v.cabin || 'economy'))}</select>
<label for="airline">Preferred airline (optional)</label><input id="airline" name="airline" value="${v.airline ?? ''}">
<label for="time">Preferred departure time (optional)</label><input id="time" name="time" type="time" value="${v.time ?? ''}"${inv(form, 'time')}>${e(form, 'time')}
<p><button class="btn" type="submit">Search</button></p></form>
<script>document.querySelectorAll('.stepper button').forEach(function(b){b.onclick=function(){var i=document.getElementById('travelers');i.value=Math.min(9,Math.max(1,+i.value+ +b.dataset.d));};});</script>`);
}

function fq(s: SearchRecord): FlightSearch {
  return s.query as FlightSearch;
}

function results(s: SearchRecord, message?: string): string {
  const q = fq(s);
  const g = gate(s);
  if (g === 'captcha') {
    return layout('Verify you are human', html`<h1>Verify you are human</h1><p>Press and hold the button to confirm you are a human (and not a bot).</p><button type="button" id="px-hold" class="btn">Press &amp; Hold</button><p id="px-msg" role="alert" hidden>Please try again.</p>
<script>document.getElementById('px-hold').addEventListener('pointerup',function(){document.getElementById('px-msg').hidden=false;});</script>`);
  }
  if (g === 'members') {
    return layout('Sign in', html`<h1>Sign in for Member Prices</h1><p>Fares on this route are for FlyHop members. Sign in to continue.</p>${message ? html`<div class="msg" role="alert">${message}</div>` : ''}
<form method="post" action="/flights/${s.id}/signin"><label for="si-email">Email address</label><input id="si-email" name="email" type="email" autocomplete="username"><label for="si-pw">Password</label><input id="si-pw" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Sign in</button></p></form>`);
  }
  const head = html`<h1>${q.origin} to ${q.destination}</h1><p>${longDate(q.date)} · ${q.passengers} traveler${q.passengers === 1 ? '' : 's'} · ${CABIN_LABELS[q.cabin || 'economy']}</p>`;
  if (g === 'sold-out') return layout('No flights', html`${head}<div role="status"><h2>Sorry, there are no flights available</h2><p>Try searching for a different date or nearby airports.</p></div>`);
  return layout('Select your departure', html`${head}${message ? html`<div class="msg" role="alert">${message}</div>` : ''}
<form method="post" action="/flights/${s.id}/choose" id="pick"><input type="hidden" name="fare" value="basic"><fieldset><legend>Choose departing flight</legend><ul class="flights">
${s.options.map((o) => html`<li><label><input type="radio" name="offer" value="${o.id}"${raw(o.available ? '' : ' disabled')}> ${time12(o.time ?? '')} – ${time12(o.arrival ?? '')}${o.arrivesNextDay ? ' (+1)' : ''} · ${o.carrier} ${o.flightNumber} · ${duration(o.durationMinutes ?? 0)} (Nonstop) · ${money(o.unitPrice, 'USD')} per traveler${o.available ? '' : ' · Sold out'}</label></li>`)}
</ul></fieldset><div id="pick-error"></div><button class="btn" type="submit">Continue</button></form>
<dialog id="upsell" aria-labelledby="upsell-h"><h2 id="upsell-h">Upgrade your fare?</h2><p>Economy Flex adds free changes and a checked bag for ${money(FLEX_PER_TRAVELER, 'USD')} per traveler.</p>
<button type="button" class="btn" data-fare="basic">Keep my fare</button> <button type="button" data-fare="flex">Upgrade to Flex</button></dialog>
<script>(function(){var f=document.getElementById('pick'),d=document.getElementById('upsell'),ok=false;
f.addEventListener('submit',function(ev){if(ok) return; ev.preventDefault(); var box=document.getElementById('pick-error');
 if(!f.querySelector('input[name=offer]:checked')){box.innerHTML='<div class="msg" role="alert">Select a flight to continue.</div>';return;} box.innerHTML=''; d.showModal();});
d.querySelectorAll('[data-fare]').forEach(function(b){b.onclick=function(){f.fare.value=b.dataset.fare;ok=true;d.close();f.requestSubmit();};});})();</script>`);
}

function trip(b: Booking): SafeHtml {
  const q = fq(b.search);
  const o = b.option;
  return html`<section class="trip" aria-labelledby="trip-h"><h2 id="trip-h">Trip summary</h2><p>${q.origin} to ${q.destination} · ${longDate(q.date)}</p>
<p>${o.carrier} ${o.flightNumber} · departs ${time12(o.time ?? '')}, arrives ${time12(o.arrival ?? '')} · ${CABIN_LABELS[o.cabin ?? 'economy']}${o.title.endsWith('(Flex)') ? ' Flex' : ''}</p>
<p>Travelers: ${q.passengers}</p><p>Trip total: <strong>${money(o.total, 'USD')}</strong></p></section>`;
}

const CODES: Array<[string, string]> = [['1', 'United States +1'], ['44', 'United Kingdom +44'], ['33', 'France +33'], ['49', 'Germany +49'], ['34', 'Spain +34'], ['351', 'Portugal +351'], ['61', 'Australia +61']];

function travelers(b: Booking, form: FormState): string {
  const q = fq(b.search);
  const v = form.values;
  const t = Array.from({ length: q.passengers }, (_, i) => i + 1).map((n) => {
    const k = (f: string) => `traveler${n}_${f}`;
    const sec = `section-traveler${n}`;
    const f = (name: string, label: string, ac: string, req: string | null, type = 'text') => html`<label for="${k(name)}">${label}</label><input id="${k(name)}" name="${k(name)}" type="${type}" autocomplete="${sec} ${ac}" value="${v[k(name)] ?? ''}"${req ? raw(` data-required="${req}"`) : ''}${inv(form, k(name))}>${e(form, k(name))}`;
    return html`<fieldset><legend>Traveler ${n}: Adult</legend>${f('first', 'First name', 'given-name', 'Enter a first name')}${f('middle', 'Middle name (optional)', 'additional-name', null)}${f('last', 'Last name', 'family-name', 'Enter a last name')}
${f('dob', 'Date of birth', 'bday', 'Enter a date of birth', 'date')}
<fieldset><legend>Gender</legend><label><input type="radio" name="${k('gender')}" value="F"> Female</label><label><input type="radio" name="${k('gender')}" value="M"> Male</label><label><input type="radio" name="${k('gender')}" value="X" checked> Unspecified</label></fieldset>
<label for="${k('passport')}">Passport number</label><input id="${k('passport')}" name="${k('passport')}" value="${v[k('passport')] ?? ''}" data-required="Enter a passport number" data-pattern="^[A-Za-z0-9]{6,9}$" data-pattern-message="Passport numbers have 6 to 9 letters or digits"${inv(form, k('passport'))}>${e(form, k('passport'))}
<label for="${k('country')}">Passport issuing country</label><select id="${k('country')}" name="${k('country')}" data-required="Select the issuing country"${inv(form, k('country'))}><option value="">Select a country</option>${COUNTRIES.map(([c, nm]) => opt(c, nm, v[k('country')] ?? ''))}</select>${e(form, k('country'))}
${f('ktn', 'Known Traveler Number (optional)', 'off', null)}</fieldset>`;
  });
  return layout('Who\u2019s traveling?', html`<h1>Who\u2019s traveling?</h1>${trip(b)}<form method="post" action="/trip/${b.id}/travelers" novalidate data-validate>
${Object.keys(form.errors).length ? html`<div class="summary" role="alert">Please correct the errors below.</div>` : ''}${t}
<fieldset><legend>Contact information</legend><label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" value="${v.email ?? ''}" data-required="Enter an email address" data-pattern="^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$" data-pattern-message="Enter a valid email address"${inv(form, 'email')}>${e(form, 'email')}
<label for="phone_cc">Country/Territory code</label><select id="phone_cc" name="phone_cc" autocomplete="tel-country-code">${CODES.map(([c, l]) => opt(c, l, v.phone_cc || '1'))}</select>
<label for="phone">Phone number</label><input id="phone" name="phone" type="tel" autocomplete="tel-national" value="${v.phone ?? ''}" data-required="Enter a phone number"${inv(form, 'phone')}>${e(form, 'phone')}</fieldset>
<p><label><input type="checkbox" name="deals" value="1"> Send me FlyHop deals</label></p><button class="btn" type="submit">Continue</button></form>`);
}

function standardTravelers(b: Booking, form: URLSearchParams): { params: URLSearchParams; names: Record<string, string> } {
  const q = fq(b.search);
  const params = new URLSearchParams(form);
  const names: Record<string, string> = { email: 'email', tel: 'tel' };
  for (let n = 1; n <= q.passengers; n++) {
    Object.assign(names, { [`traveler${n}_first`]: `p${n}_given_name`, [`traveler${n}_last`]: `p${n}_family_name`, [`traveler${n}_dob`]: `p${n}_birth_date`, [`traveler${n}_passport`]: `p${n}_passport_number`, [`traveler${n}_country`]: `p${n}_passport_country`, [`traveler${n}_ktn`]: `p${n}_known_traveler_number` });
  }
  const national = (form.get('phone') ?? '').trim();
  params.set('tel', national ? `+${(form.get('phone_cc') ?? '1').replace(/\D/g, '')} ${national}` : '');
  params.delete('phone');
  return { params, names };
}

function review(b: Booking): string {
  const g = b.guest!;
  return layout('Review and book', html`<h1>Review and book</h1>${trip(b)}<h2>Travelers</h2><ul>${g.passengers.map((p) => html`<li>${p.givenName} ${p.familyName}</li>`)}</ul><p>Card on file: ${CARD}</p>
<form method="post" action="/trip/${b.id}/review"><button class="btn" type="submit">Continue to checkout</button></form>`);
}

function checkout(b: Booking, error?: string): string {
  if (expired(b)) return layout('Expired', html`<h1>Your fare is no longer held</h1><p role="alert">Please search again.</p>`);
  return layout('Checkout', html`<h1>Secure checkout</h1>${trip(b)}<form method="post" action="/trip/${b.id}/checkout" novalidate data-validate><p>Pay with ${CARD}</p>
<label for="cardCvv">Security code</label><input id="cardCvv" name="cardCvv" autocomplete="cc-csc" inputmode="numeric" maxlength="4" data-required="Enter the security code" data-pattern="^\\d{3,4}$" data-pattern-message="Security code must be 3 or 4 digits"${error ? raw(' aria-invalid="true" aria-describedby="cardCvv-error"') : ''}>${error ? html`<div class="msg" id="cardCvv-error" role="alert">${error}</div>` : ''}
<p><button class="btn" type="submit">Complete booking</button></p></form>`);
}

function itinerary(b: Booking): string {
  const q = fq(b.search);
  const o = b.option;
  return layout('Your trip is booked', html`<div itemscope itemtype="https://schema.org/FlightReservation"><h1>Your trip is booked!</h1>
<p>Itinerary # <strong itemprop="reservationNumber">${b.confirmation!.code}</strong></p><link itemprop="reservationStatus" href="https://schema.org/ReservationConfirmed">
<div itemprop="reservationFor" itemscope itemtype="https://schema.org/Flight"><meta itemprop="flightNumber" content="${o.flightNumber}"><meta itemprop="departureTime" content="${q.date}T${o.time}:00"></div>
<div itemprop="underName" itemscope itemtype="https://schema.org/Person"><meta itemprop="name" content="${b.guest!.givenName} ${b.guest!.familyName}"></div>${trip(b)}</div>`);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') return ok(home({ values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} }));
  if (method === 'GET' && path === '/Flights-Search') {
    const values: Record<string, string> = {};
    for (const [k, std] of Object.entries(SEARCH_NAMES)) values[std] = (req.query.get(k) ?? '').trim();
    const r = search(ctx, values);
    if (!r.record) {
      const back = Object.fromEntries(Object.entries(SEARCH_NAMES).map(([a, b]) => [b, a]));
      const form: FormState = { values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} };
      for (const [k, msg] of Object.entries(r.form.errors)) form.errors[back[k] ?? k] = msg;
      return htmlRes(422, home(form));
    }
    return redirect(`/flights/${r.record.id}`);
  }
  if ((m = /^\/flights\/([^/]+)(\/choose|\/signin)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout('Expired', html`<h1>Your search has expired</h1><p><a href="/">Search again</a></p>`));
    if (m[2] === '/signin' && method === 'POST') return htmlRes(401, results(s, 'Email or password is incorrect.'));
    if (m[2] === '/choose' && method === 'POST') {
      const b = hold(ctx, s, req.form.get('offer') ?? '');
      if (typeof b === 'string') return htmlRes(409, results(s, b));
      if (req.form.get('fare') === 'flex') {
        const q = fq(s);
        b.option = { ...b.option, title: `${b.option.title} (Flex)`, unitPrice: b.option.unitPrice + FLEX_PER_TRAVELER, total: b.option.total + FLEX_PER_TRAVELER * q.passengers };
      }
      return redirect(`/trip/${b.id}/travelers`);
    }
    if (!m[2] && method === 'GET') return ok(results(s));
  }
  if ((m = /^\/trip\/([^/]+)\/(travelers|review|checkout|itinerary)$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout('Not found', html`<h1>Trip not found</h1>`));
    const step = m[2];
    if (b.confirmation && step !== 'itinerary') return redirect(`/trip/${b.id}/itinerary`);
    if (step === 'travelers') {
      if (method === 'POST') {
        const { params, names } = standardTravelers(b, req.form);
        const form = guest(b, params, names);
        if (!form) return redirect(`/trip/${b.id}/review`);
        form.values = Object.fromEntries(req.form);
        if (form.errors.tel) form.errors.phone = form.errors.tel;
        return htmlRes(422, travelers(b, form));
      }
      return ok(travelers(b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/trip/${b.id}/travelers`);
    if (step === 'review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/trip/${b.id}/checkout`);
      }
      return ok(review(b));
    }
    if (step === 'checkout') {
      if (!b.reviewed) return redirect(`/trip/${b.id}/review`);
      if (method === 'POST') {
        const err = pay(ctx, b, req.form.get('cardCvv') ?? '', () => code.digits(13));
        return err ? htmlRes(expired(b) ? 410 : 422, checkout(b, err)) : redirect(`/trip/${b.id}/itinerary`);
      }
      return ok(checkout(b));
    }
    if (step === 'itinerary') return b.confirmation ? ok(itinerary(b)) : redirect(`/trip/${b.id}/checkout`);
  }
  return htmlRes(404, layout('Not found', html`<h1>Page not found</h1>`));
}
