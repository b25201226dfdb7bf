/**
 * Innkeep — a hotel chain site that publishes WebMCP tools: the search form is
 * a declarative tool (`<form toolname tooldescription>`), and the results and
 * guest pages register imperative tools (`document.modelContext.registerTool`,
 * the API Chromium 156 ships behind --enable-features=WebMCP; `navigator.modelContext`
 * where a browser has that instead) to list and hold rooms and to enter guest
 * details. Nothing pays through a tool. For people it is a plain server-rendered
 * site with rooms in a table. Confirmation: only a visible "Confirmation number".
 */
import { code, expired, gate, guest, hold, pay, search, type SiteCtx } from '../core.ts';
import { captchaWidget, html, htmlRes, jsonRes, longDate, money, ok, page, raw, redirect, type Req, type Res, type SafeHtml } from '../kit.ts';
import { daysBetween } from '../../engine/inventory.ts';
import type { Booking, FormState, HotelSearch, SearchRecord } from '../../engine/types.ts';

const CARD = 'American Express •••• 1005';
const CSS = `body{font-family:Georgia,serif;margin:0;background:#f7f3ea;color:#2b2118}header{background:#2b2118;color:#f7f3ea;padding:18px 28px;font-size:24px}
main{max-width:820px;margin:24px auto;padding:0 16px}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #cbbd9f;padding:8px;text-align:left}
.btn{background:#7a4f1d;color:#fff;border:0;padding:9px 16px;border-radius:3px}.err{color:#a4000f}label{display:block;margin-top:10px}`;

const TOOLS_HEAD = raw(`<script>window.__innkeepTools=function(list){var mc=document.modelContext||navigator.modelContext;if(!mc||!mc.registerTool)return;list.forEach(function(t){mc.registerTool(t);});};</script>`);

function layout(title: string, body: SafeHtml, tools?: SafeHtml): string {
  return page({ title: `${title} — Innkeep Hotels & Inns`, css: CSS, head: TOOLS_HEAD, body: html`<header>Innkeep Hotels &amp; Inns</header><main>${body}</main>${tools ?? ''}` });
}

function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<span class="err" id="${n}-error" role="alert">${form.errors[n]}</span>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-error"`) : raw('');
}

const SEARCH_NAMES: Record<string, string> = { hotel: 'hotel_name', town: 'city', arrive: 'check_in', depart: 'check_out', guests: 'adults', room_type: 'room_preference' };

function home(form: FormState): string {
  const v = form.values;
  return layout('Book a room', html`<h1>Book a room</h1>
<form method="post" action="/availability" toolname="search_rooms" tooldescription="Search rooms and nightly rates at an Innkeep hotel for a stay. Opens the page listing the rooms available for the dates." toolautosubmit>
<label for="hotel">Hotel</label><input id="hotel" name="hotel" value="${v.hotel ?? ''}" toolparamdescription="Name of the Innkeep hotel"${inv(form, 'hotel')}>${e(form, 'hotel')}
<label for="town">Town</label><input id="town" name="town" value="${v.town ?? ''}" toolparamdescription="Town or city the hotel is in"${inv(form, 'town')}>${e(form, 'town')}
<label for="arrive">Arrival</label><input id="arrive" name="arrive" type="date" value="${v.arrive ?? ''}" toolparamdescription="Check-in date, YYYY-MM-DD"${inv(form, 'arrive')}>${e(form, 'arrive')}
<label for="depart">Departure</label><input id="depart" name="depart" type="date" value="${v.depart ?? ''}" toolparamdescription="Check-out date, YYYY-MM-DD"${inv(form, 'depart')}>${e(form, 'depart')}
<label for="guests">Guests</label><select id="guests" name="guests" toolparamdescription="Number of adult guests">${[1, 2, 3, 4, 5, 6, 7, 8].map((n) => html`<option value="${n}"${raw(String(n) === (v.guests || '2') ? ' selected' : '')}>${n}</option>`)}</select>
<label for="room_type">Room type (optional)</label><input id="room_type" name="room_type" value="${v.room_type ?? ''}" toolparamdescription="Preferred room type, e.g. suite">
<p><button class="btn" type="submit">Check availability</button></p></form>`);
}

function hotelOf(s: SearchRecord): HotelSearch {
  return s.query as HotelSearch;
}

function roomsJson(s: SearchRecord) {
  return s.options.map((o) => ({ room_id: o.id, name: o.title, description: o.description, total_price: money(o.total, 'GBP'), nightly_rate: money(o.unitPrice, 'GBP'), available: o.available, matches_preference: o.matchesPreference ?? false }));
}

function availability(s: SearchRecord, message?: string): string {
  const q = hotelOf(s);
  const g = gate(s);
  const nights = daysBetween(q.checkIn, q.checkOut);
  if (g === 'captcha') return layout('Security check', html`<h1>Please confirm you are not a robot</h1>${captchaWidget('hcaptcha')}<p>Rates are shown once the check is complete.</p>`);
  if (g === 'members') {
    return layout('Sign in', html`<h1>Sign in to Innkeep Rewards</h1><p>Rooms at ${q.hotelName} are bookable by Rewards members only.</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/availability/${s.id}/sign-in"><label for="member">Member number or email</label><input id="member" name="member" autocomplete="username"><label for="pin">Password</label><input id="pin" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Sign in</button></p></form>`);
  }
  const head = html`<h1>${q.hotelName}, ${q.city}</h1><p>${longDate(q.checkIn)} to ${longDate(q.checkOut)} · ${nights} night${nights === 1 ? '' : 's'} · ${q.adults} guest${q.adults === 1 ? '' : 's'}</p>`;
  if (g === 'sold-out') return layout('No rooms', html`${head}<p role="status"><strong>We have no rooms available for these dates.</strong> Please try different dates.</p>`);
  const tools = raw(`<script>window.__innkeepTools([
{name:'list_rooms',description:'List the rooms offered for this search, with prices for the whole stay and whether each can be booked.',inputSchema:{type:'object',properties:{}},
 execute:function(){return fetch('/api/searches/${s.id}/rooms').then(function(r){return r.json();}).then(function(j){return {content:[{type:'text',text:JSON.stringify(j)}]};});}},
{name:'hold_room',description:'Hold one room for this stay (nothing is charged) and open the guest details page. Use a room_id from list_rooms.',inputSchema:{type:'object',properties:{room_id:{type:'string',description:'room_id from list_rooms'}},required:['room_id']},
 execute:function(args){return fetch('/api/searches/${s.id}/holds',{method:'POST',headers:{'content-type':'application/json'},body:JSON.stringify({room_id:args&&args.room_id})}).then(function(r){return r.json();}).then(function(j){
   if(j.next){setTimeout(function(){location.assign(j.next);},50);} return {content:[{type:'text',text:JSON.stringify(j)}]};});}}
]);</script>`);
  return layout(q.hotelName, html`${head}${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/availability/${s.id}/hold"><table><caption>Rooms available</caption><thead><tr><th scope="col">Room</th><th scope="col">Details</th><th scope="col">Nightly rate</th><th scope="col">Total for ${nights} night${nights === 1 ? '' : 's'}</th><th scope="col"><span hidden>Book</span></th></tr></thead>
<tbody>${s.options.map((o) => html`<tr><th scope="row">${o.title}${o.matchesPreference ? html` <small>(your preference)</small>` : ''}</th><td>${o.description ?? ''}</td><td>${money(o.unitPrice, 'GBP')}</td><td>${money(o.total, 'GBP')}</td>
<td>${o.available ? html`<button class="btn" type="submit" name="room" value="${o.id}" aria-label="Book ${o.title}">Book</button>` : html`<span>Unavailable</span>`}</td></tr>`)}</tbody></table></form>`, tools);
}

function stayTable(b: Booking): SafeHtml {
  const q = hotelOf(b.search);
  const nights = daysBetween(q.checkIn, q.checkOut);
  return html`<table><tbody><tr><th scope="row">Hotel</th><td>${q.hotelName}, ${q.city}</td></tr><tr><th scope="row">Arrival</th><td>${longDate(q.checkIn)}</td></tr>
<tr><th scope="row">Departure</th><td>${longDate(q.checkOut)} (${nights} night${nights === 1 ? '' : 's'})</td></tr><tr><th scope="row">Guests</th><td>${q.adults}</td></tr>
<tr><th scope="row">Room</th><td>${b.option.title}</td></tr><tr><th scope="row">Total</th><td>${money(b.option.total, 'GBP')}</td></tr></tbody></table>`;
}

const GUEST_NAMES = { guest_given: 'given_name', guest_family: 'family_name', guest_email: 'email', guest_phone: 'tel', guest_requests: 'special_requests' };

function guests(b: Booking, form: FormState): string {
  const v = form.values;
  const f = (n: string, label: string, ac: string, type = 'text') => html`<label for="${n}">${label}</label><input id="${n}" name="${n}" type="${type}" autocomplete="${ac}" value="${v[n] ?? ''}"${inv(form, n)}>${e(form, n)}`;
  const tools = raw(`<script>window.__innkeepTools([{name:'enter_guest_details',description:'Enter the lead guest\\u2019s details for the held room and continue to the review page.',
inputSchema:{type:'object',properties:{given_name:{type:'string'},family_name:{type:'string'},email:{type:'string',format:'email'},phone:{type:'string'},requests:{type:'string',description:'Optional special requests'}},required:['given_name','family_name','email','phone']},
execute:function(a){var f=document.getElementById('guest-form');f.guest_given.value=a.given_name||'';f.guest_family.value=a.family_name||'';f.guest_email.value=a.email||'';f.guest_phone.value=a.phone||'';f.guest_requests.value=a.requests||'';
 setTimeout(function(){f.requestSubmit();},50);return {content:[{type:'text',text:'Details entered; opening the review page.'}]};}}]);</script>`);
  return layout('Guest details', html`<h1>Who\u2019s staying?</h1>${stayTable(b)}<form id="guest-form" method="post" action="/stay/${b.id}/guests">
${f('guest_given', 'Given name', 'given-name')}${f('guest_family', 'Family name', 'family-name')}${f('guest_email', 'Email', 'email', 'email')}${f('guest_phone', 'Telephone', 'tel', 'tel')}
<label for="guest_requests">Requests for the hotel (optional)</label><textarea id="guest_requests" name="guest_requests">${v.guest_requests ?? ''}</textarea>
<p><button class="btn" type="submit">Continue</button></p></form>`, tools);
}

function review(b: Booking): string {
  const g = b.guest!;
  return layout('Review your stay', html`<h1>Review your stay</h1>${stayTable(b)}<p>Lead guest: ${g.givenName} ${g.familyName} (${g.email})</p><p>Card on file: ${CARD}</p>
<form method="post" action="/stay/${b.id}/review"><button class="btn" type="submit">Proceed to payment</button></form>`);
}

function payment(b: Booking, error?: string): string {
  if (expired(b)) return layout('Hold expired', html`<h1>Your room is no longer held</h1><p role="alert">The hold has expired.</p>`);
  return layout('Payment', html`<h1>Payment</h1>${stayTable(b)}<form method="post" action="/stay/${b.id}/payment"><p>Card on file: <strong>${CARD}</strong></p>
<label for="securityCode">Security code</label><input id="securityCode" name="securityCode" autocomplete="cc-csc" inputmode="numeric" maxlength="4"${error ? raw(' aria-invalid="true" aria-describedby="securityCode-error"') : ''}>${error ? html`<span class="err" id="securityCode-error" role="alert">${error}</span>` : ''}
<p><button class="btn" type="submit">Pay and confirm</button></p></form>`);
}

function confirmed(b: Booking): string {
  return layout('Stay confirmed', html`<h1>Your stay is confirmed</h1><p>Confirmation number: <strong>${b.confirmation!.code}</strong></p>${stayTable(b)}`);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') return ok(home({ values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.query.get(k) ?? ''])), errors: {} }));
  if (method === 'POST' && path === '/availability') {
    const values: Record<string, string> = {};
    for (const [k, std] of Object.entries(SEARCH_NAMES)) values[std] = (req.form.get(k) ?? '').trim();
    const r = search(ctx, values);
    if (!r.record) {
      const back = Object.fromEntries(Object.entries(SEARCH_NAMES).map(([a, b]) => [b, a]));
      const form: FormState = { values: Object.fromEntries(Object.keys(SEARCH_NAMES).map((k) => [k, req.form.get(k) ?? ''])), errors: {} };
      for (const [k, msg] of Object.entries(r.form.errors)) form.errors[back[k] ?? k] = msg;
      return htmlRes(422, home(form));
    }
    return redirect(`/availability/${r.record.id}`);
  }
  if ((m = /^\/api\/searches\/([^/]+)\/(rooms|holds)$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return jsonRes(404, { error: 'This search has expired.' });
    if (gate(s) === 'members' || gate(s) === 'captcha') return jsonRes(403, { error: 'Not available.' });
    if (m[2] === 'rooms' && method === 'GET') return jsonRes(200, { hotel: hotelOf(s).hotelName, rooms: roomsJson(s) });
    if (m[2] === 'holds' && method === 'POST') {
      let roomId = '';
      try {
        roomId = String((JSON.parse(req.body.toString('utf8')) as { room_id?: unknown }).room_id ?? '');
      } catch {
        /* empty */
      }
      const b = hold(ctx, s, roomId);
      if (typeof b === 'string') return jsonRes(409, { error: b });
      return jsonRes(201, { held: true, room: b.option.title, total_price: money(b.option.total, 'GBP'), hold_expires_at: new Date(b.holdExpiresAt).toISOString(), next: `/stay/${b.id}/guests` });
    }
  }
  if ((m = /^\/availability\/([^/]+)(\/hold|\/sign-in)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout('Not found', html`<h1>This search has expired</h1>`));
    if (m[2] === '/sign-in' && method === 'POST') return htmlRes(401, availability(s, 'We could not sign you in with those details.'));
    if (m[2] === '/hold' && method === 'POST') {
      const b = hold(ctx, s, req.form.get('room') ?? '');
      return typeof b === 'string' ? htmlRes(409, availability(s, b)) : redirect(`/stay/${b.id}/guests`);
    }
    if (!m[2] && method === 'GET') return ok(availability(s));
  }
  if ((m = /^\/stay\/([^/]+)\/(guests|review|payment|confirmed)$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout('Not found', html`<h1>Booking not found</h1>`));
    const step = m[2];
    if (b.confirmation && step !== 'confirmed') return redirect(`/stay/${b.id}/confirmed`);
    if (step === 'guests') {
      if (method === 'POST') {
        const form = guest(b, req.form, GUEST_NAMES);
        return form ? htmlRes(422, guests(b, form)) : redirect(`/stay/${b.id}/review`);
      }
      return ok(guests(b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/stay/${b.id}/guests`);
    if (step === 'review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/stay/${b.id}/payment`);
      }
      return ok(review(b));
    }
    if (step === 'payment') {
      if (!b.reviewed) return redirect(`/stay/${b.id}/review`);
      if (method === 'POST') {
        const err = pay(ctx, b, req.form.get('securityCode') ?? '', () => `IK-${code.digits(7)}`);
        return err ? htmlRes(expired(b) ? 410 : 422, payment(b, err)) : redirect(`/stay/${b.id}/confirmed`);
      }
      return ok(payment(b));
    }
    if (step === 'confirmed') return b.confirmation ? ok(confirmed(b)) : redirect(`/stay/${b.id}/payment`);
  }
  return htmlRes(404, layout('Not found', html`<h1>Page not found</h1>`));
}
