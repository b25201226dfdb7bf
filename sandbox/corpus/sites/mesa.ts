/**
 * Mesa — a restaurant site in the Resy style: a single-page app. The server
 * sends one shell; the page renders every step after fetch() calls to a JSON
 * API (/api/v2/…). Guests through a +/− stepper, client-side validation
 * messages, slots as cards, guest details in a modal <dialog>, the CVV sent as
 * JSON. Confirmation: only a visible "Booking reference".
 */
import { code, expired, gate, guest, hold, pay, search, type SiteCtx } from '../core.ts';
import { html, htmlRes, jsonRes, longDate, money, page, raw, time12, type Req, type Res } from '../kit.ts';
import type { Booking, RestaurantSearch, SearchRecord } from '../../engine/types.ts';

const CARD = 'Mastercard •••• 4444';

const CSS = `body{font-family:system-ui,sans-serif;margin:0;background:#111;color:#eee}header{padding:16px 24px;font-size:20px;letter-spacing:.2em}
#app{max-width:720px;margin:0 auto;padding:16px}label{display:block;margin-top:10px}input{padding:8px;background:#222;color:#eee;border:1px solid #444}
.stepper{display:flex;gap:8px;align-items:center}.stepper button{width:32px;height:32px}.slots{list-style:none;padding:0;display:grid;grid-template-columns:repeat(auto-fill,minmax(150px,1fr));gap:10px}
.slot{border:1px solid #444;border-radius:8px;padding:12px}.primary{background:#e94b3c;color:#fff;border:0;padding:10px 18px;border-radius:6px;margin-top:12px}
.error{color:#ff8a80}dialog{background:#1b1b1b;color:#eee;border:1px solid #555;border-radius:10px;min-width:320px}dialog::backdrop{background:rgba(0,0,0,.7)}`;

function shell(): string {
  return page({
    title: 'Mesa — Reserve a table',
    css: CSS,
    body: html`<header>MESA</header><main id="app" aria-live="polite"><p>Loading…</p></main><script>${raw(CLIENT)}</script>`,
  });
}

function slotsJson(s: SearchRecord) {
  return s.options.map((o) => ({ id: o.id, time: o.time, label: time12(o.time ?? ''), area: o.description, perGuest: money(o.unitPrice, 'EUR'), total: money(o.total, 'EUR'), available: o.available }));
}

function summaryJson(b: Booking) {
  const q = b.search.query as RestaurantSearch;
  return {
    holdId: b.id, restaurant: q.restaurantName, city: q.city, date: longDate(q.date), time: time12(b.option.time ?? ''), guests: q.partySize,
    area: b.option.description, total: money(b.option.total, 'EUR'), card: CARD, expiresAt: new Date(b.holdExpiresAt).toISOString(),
    guest: b.guest ? { name: `${b.guest.givenName} ${b.guest.familyName}`, email: b.guest.email } : null,
    step: b.confirmation ? 'confirmed' : !b.guest ? 'details' : !b.reviewed ? 'review' : 'payment', reference: b.confirmation?.code ?? null,
  };
}

function body(req: Req): Record<string, unknown> {
  try {
    const v: unknown = JSON.parse(req.body.toString('utf8') || '{}');
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
const str = (v: unknown) => (typeof v === 'string' || typeof v === 'number' ? String(v) : '');

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (!path.startsWith('/api/')) {
    return method === 'GET' && (path === '/' || /^\/reservation\/[^/]+$/.test(path)) ? htmlRes(200, shell()) : htmlRes(404, '<!doctype html><title>Not found</title><h1>Not found</h1>');
  }
  if (method === 'POST' && path === '/api/v2/search') {
    const j = body(req);
    const r = search(ctx, { restaurant_name: str(j.venue).trim(), city: str(j.city).trim(), date: str(j.day).trim(), time: str(j.time).trim(), party_size: str(j.partySize).trim() });
    if (!r.record) {
      const names: Record<string, string> = { restaurant_name: 'venue', city: 'city', date: 'day', time: 'time', party_size: 'partySize' };
      return jsonRes(422, { errors: Object.fromEntries(Object.entries(r.form.errors).map(([k, e]) => [names[k] ?? k, e])) });
    }
    const s = r.record;
    const q = s.query as RestaurantSearch;
    const g = gate(s);
    if (g === 'members') return jsonRes(401, { error: 'login_required', message: `${q.restaurantName} takes reservations from Mesa members only. Log in to continue.` });
    if (g === 'captcha') return jsonRes(200, { searchId: s.id, challenge: 'turnstile' });
    return jsonRes(200, { searchId: s.id, venue: { name: q.restaurantName, city: q.city, date: longDate(q.date), guests: q.partySize }, slots: g === 'sold-out' ? [] : slotsJson(s) });
  }
  if (method === 'POST' && path === '/api/v2/login') return jsonRes(401, { error: 'invalid_credentials', message: 'Incorrect email or password.' });
  if (method === 'POST' && path === '/api/v2/holds') {
    const j = body(req);
    const s = ctx.store.searches.get(str(j.searchId));
    if (!s) return jsonRes(404, { error: 'search_not_found', message: 'This search has expired. Please search again.' });
    const b = hold(ctx, s, str(j.slotId));
    if (typeof b === 'string') return jsonRes(409, { error: 'slot_unavailable', message: b });
    return jsonRes(201, summaryJson(b));
  }
  if ((m = /^\/api\/v2\/holds\/([^/]+)(\/guest|\/review|\/payment)?$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return jsonRes(404, { error: 'hold_not_found', message: 'This reservation could not be found.' });
    const step = m[2] ?? '';
    if (step === '' && method === 'GET') return jsonRes(200, summaryJson(b));
    if (b.confirmation) return jsonRes(409, { error: 'already_confirmed', message: 'This reservation is already confirmed.' });
    if (step === '/guest' && method === 'PUT') {
      const j = body(req);
      const form = new URLSearchParams({ given_name: str(j.firstName), family_name: str(j.lastName), email: str(j.email), tel: str(j.phone), special_requests: str(j.notes) });
      const bad = guest(b, form);
      if (bad) {
        const names: Record<string, string> = { given_name: 'firstName', family_name: 'lastName', email: 'email', tel: 'phone' };
        return jsonRes(422, { errors: Object.fromEntries(Object.entries(bad.errors).map(([k, e]) => [names[k] ?? k, e])) });
      }
      return jsonRes(200, summaryJson(b));
    }
    if (step === '/review' && method === 'POST') {
      if (!b.guest) return jsonRes(409, { error: 'details_missing', message: 'Add your details first.' });
      b.reviewed = true;
      return jsonRes(200, summaryJson(b));
    }
    if (step === '/payment' && method === 'POST') {
      const e = pay(ctx, b, str(body(req).cvv), () => code.letters(6));
      if (e) return jsonRes(expired(b) ? 410 : 422, { error: 'payment_refused', message: e });
      return jsonRes(200, summaryJson(b));
    }
  }
  return jsonRes(404, { error: 'not_found', message: 'Not found.' });
}

/** The single-page app (plain DOM, no framework). Every step renders after its API call answers. */
const CLIENT = String.raw`(function(){
var app=document.getElementById('app'); var state={guests:2};
function esc(s){return String(s==null?'':s).replace(/[&<>"']/g,function(c){return {'&':'&amp;','<':'&lt;','>':'&gt;','"':'&quot;',"'":'&#39;'}[c];});}
function api(method,url,data){return fetch(url,{method:method,headers:{'content-type':'application/json'},body:data?JSON.stringify(data):undefined}).then(function(r){return r.json().then(function(j){return {status:r.status,body:j};});});}
function showErrors(form,errors){form.querySelectorAll('.error').forEach(function(e){e.remove();});form.querySelectorAll('[aria-invalid]').forEach(function(e){e.removeAttribute('aria-invalid');e.removeAttribute('aria-describedby');});
  var first=null; Object.keys(errors).forEach(function(k){var inp=form.querySelector('[name="'+k+'"]'); var p=document.createElement('p'); p.className='error'; p.id=k+'-error'; p.setAttribute('role','alert'); p.textContent=errors[k];
    if(inp){inp.setAttribute('aria-invalid','true');inp.setAttribute('aria-describedby',p.id);inp.insertAdjacentElement('afterend',p); first=first||inp;} else form.prepend(p);}); if(first) first.focus(); return Object.keys(errors).length>0;}
function required(form,labels){var e={}; Object.keys(labels).forEach(function(k){var v=form.elements[k].value.trim(); if(!v) e[k]=labels[k];}); return e;}
function renderSearch(){
  var q=new URLSearchParams(location.search);
  app.innerHTML='<h1>Reserve a table</h1><form id="search" novalidate>'+
   '<label for="venue">Restaurant</label><input id="venue" name="venue" value="'+esc(q.get('venue')||'')+'">'+
   '<label for="city">City</label><input id="city" name="city" autocomplete="address-level2" value="'+esc(q.get('city')||'')+'">'+
   '<label for="day">Date</label><input id="day" name="day" type="date" value="'+esc(q.get('day')||'')+'">'+
   '<label for="time">Time</label><input id="time" name="time" type="time" step="900" value="'+esc(q.get('time')||'19:00')+'">'+
   '<span id="guests-label" style="display:block;margin-top:10px">Guests</span><div class="stepper" role="group" aria-labelledby="guests-label">'+
   '<button type="button" id="guests-minus" aria-label="Fewer guests">−</button><output id="guests-value" name="partySize" aria-live="polite">'+state.guests+'</output><button type="button" id="guests-plus" aria-label="More guests">+</button></div>'+
   '<button class="primary" type="submit">Find a table</button></form><div id="results"></div>';
  var out=document.getElementById('guests-value');
  document.getElementById('guests-minus').onclick=function(){state.guests=Math.max(1,state.guests-1); out.value=state.guests;};
  document.getElementById('guests-plus').onclick=function(){state.guests=Math.min(20,state.guests+1); out.value=state.guests;};
  var form=document.getElementById('search');
  form.onsubmit=function(ev){ev.preventDefault();
    if(showErrors(form,required(form,{venue:'Enter a restaurant name.',city:'Enter a city.',day:'Choose a date.',time:'Choose a time.'}))) return;
    var res=document.getElementById('results'); res.innerHTML='<p role="status">Searching…</p>';
    api('POST','/api/v2/search',{venue:form.elements.venue.value,city:form.elements.city.value,day:form.elements.day.value,time:form.elements.time.value,partySize:state.guests}).then(function(r){
      if(r.status===422){res.innerHTML=''; showErrors(form,r.body.errors); return;}
      if(r.status===401){renderLogin(r.body.message); return;}
      if(r.body.challenge){res.innerHTML='<section aria-labelledby="chk"><h2 id="chk">Verify you are human</h2><p>Complete the security check before we show tables.</p><div class="cf-turnstile"><iframe title="Widget containing a Cloudflare security challenge" src="/__challenge/turnstile" width="300" height="65" style="border:0"></iframe></div></section>'; return;}
      state.searchId=r.body.searchId; renderSlots(r.body);
    });
  };
}
function renderSlots(b){var res=document.getElementById('results'); var v=b.venue;
  if(!b.slots.some(function(s){return s.available;})){res.innerHTML='<div role="status"><h2>No tables available</h2><p>'+esc(v.name)+' is fully booked on '+esc(v.date)+' for '+v.guests+'. Try another day.</p></div>'; return;}
  res.innerHTML='<h2>'+esc(v.name)+'</h2><p>'+esc(v.city)+' · '+esc(v.date)+' · '+v.guests+' guests</p><ul class="slots">'+b.slots.map(function(s){
    return '<li class="slot"><h3>'+esc(s.label)+'</h3><p>'+esc(s.area)+'</p><p>'+esc(s.perGuest)+' per guest</p>'+(s.available?'<button type="button" class="primary" data-slot="'+esc(s.id)+'">Reserve '+esc(s.label)+'</button>':'<p><em>Fully booked</em></p>')+'</li>';}).join('')+'</ul>';
  res.querySelectorAll('button[data-slot]').forEach(function(btn){btn.onclick=function(){api('POST','/api/v2/holds',{searchId:state.searchId,slotId:btn.dataset.slot}).then(function(r){
    if(r.status!==201){res.insertAdjacentHTML('afterbegin','<p class="error" role="alert">'+esc(r.body.message)+'</p>'); return;}
    history.pushState({},'','/reservation/'+r.body.holdId); openDetails(r.body);});};});
}
function summaryHtml(s){return '<dl><dt>Restaurant</dt><dd>'+esc(s.restaurant)+'</dd><dt>Date</dt><dd>'+esc(s.date)+'</dd><dt>Time</dt><dd>'+esc(s.time)+'</dd><dt>Guests</dt><dd>'+s.guests+'</dd><dt>Table</dt><dd>'+esc(s.area)+'</dd><dt>Total</dt><dd>'+esc(s.total)+'</dd></dl>';}
function openDetails(s){
  var d=document.createElement('dialog'); d.setAttribute('aria-labelledby','dlg-title');
  d.innerHTML='<form id="details" novalidate><h2 id="dlg-title">Complete your reservation</h2><p>'+esc(s.restaurant)+' · '+esc(s.date)+' · '+esc(s.time)+' · '+s.guests+' guests</p>'+
   '<label for="firstName">First name</label><input id="firstName" name="firstName" autocomplete="given-name">'+
   '<label for="lastName">Last name</label><input id="lastName" name="lastName" autocomplete="family-name">'+
   '<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="email">'+
   '<label for="phone">Mobile number</label><input id="phone" name="phone" type="tel" autocomplete="tel">'+
   '<label for="notes">Special requests (optional)</label><input id="notes" name="notes">'+
   '<div><button type="button" id="dlg-cancel">Cancel</button> <button class="primary" type="submit">Continue</button></div></form>';
  document.body.appendChild(d); d.showModal();
  d.querySelector('#dlg-cancel').onclick=function(){d.close(); d.remove();};
  var form=d.querySelector('form');
  form.onsubmit=function(ev){ev.preventDefault();
    var e=required(form,{firstName:'Enter your first name.',lastName:'Enter your last name.',email:'Enter your email address.',phone:'Enter your mobile number.'});
    if(!e.email&&!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(form.elements.email.value)) e.email='Enter a valid email address.';
    if(showErrors(form,e)) return;
    api('PUT','/api/v2/holds/'+s.holdId+'/guest',{firstName:form.elements.firstName.value,lastName:form.elements.lastName.value,email:form.elements.email.value,phone:form.elements.phone.value,notes:form.elements.notes.value}).then(function(r){
      if(r.status===422){showErrors(form,r.body.errors); return;} d.close(); d.remove(); renderReview(r.body);});
  };
}
function renderReview(s){
  app.innerHTML='<h1>Review your reservation</h1>'+summaryHtml(s)+'<p>Reserved for '+esc(s.guest.name)+' ('+esc(s.guest.email)+')</p><p>Card on file: <strong>'+esc(s.card)+'</strong></p><button class="primary" id="to-payment" type="button">Continue to payment</button>';
  document.getElementById('to-payment').onclick=function(){api('POST','/api/v2/holds/'+s.holdId+'/review').then(function(r){renderPayment(r.body);});};
}
function renderPayment(s,error){
  app.innerHTML='<h1>Payment</h1>'+summaryHtml(s)+'<form id="pay" novalidate><p>Card on file: <strong>'+esc(s.card)+'</strong></p><label for="cvv">CVV</label><input id="cvv" name="cvv" autocomplete="cc-csc" inputmode="numeric" maxlength="4">'+
   (error?'<p class="error" role="alert">'+esc(error)+'</p>':'')+'<div><button class="primary" type="submit">Pay '+esc(s.total)+'</button></div></form>';
  document.getElementById('pay').onsubmit=function(ev){ev.preventDefault(); var form=this;
    if(showErrors(form,required(form,{cvv:'Enter the CVV on the back of your card.'}))) return;
    api('POST','/api/v2/holds/'+s.holdId+'/payment',{cvv:form.elements.cvv.value}).then(function(r){if(r.status!==200){renderPayment(s,r.body.message); return;} renderConfirmed(r.body);});};
}
function renderConfirmed(s){app.innerHTML='<h1>You\u2019re booked!</h1><p>Booking reference: <strong>'+esc(s.reference)+'</strong></p>'+summaryHtml(s)+'<p>We sent the details to '+esc(s.guest.email)+'.</p>';}
function renderLogin(message){
  app.innerHTML='<h1>Log in to Mesa</h1><p>'+esc(message)+'</p><form id="login" novalidate><label for="login-email">Email</label><input id="login-email" name="email" type="email" autocomplete="username"><label for="login-password">Password</label><input id="login-password" name="password" type="password" autocomplete="current-password"><button class="primary" type="submit">Log in</button></form>';
  document.getElementById('login').onsubmit=function(ev){ev.preventDefault(); var f=this; api('POST','/api/v2/login',{email:f.elements.email.value}).then(function(r){showErrors(f,{password:r.body.message});});};
}
var m=/^\/reservation\/([^/]+)$/.exec(location.pathname);
if(m){api('GET','/api/v2/holds/'+m[1]).then(function(r){if(r.status!==200){app.innerHTML='<p role="alert">'+esc(r.body.message)+'</p>'; return;} var s=r.body;
  if(s.step==='confirmed') renderConfirmed(s); else if(s.step==='payment') renderPayment(s); else if(s.step==='review') renderReview(s); else {app.innerHTML='<h1>Reserve a table</h1>'+summaryHtml(s); openDetails(s);}});}
else renderSearch();
})();`;

