/**
 * Tickety — event tickets in the Ticketmaster style: a search box named only
 * by its aria-label, an event list, then the event page with ticket types as a
 * radio list and a quantity stepper; the order is held under a live countdown;
 * contact details ask for the email twice; the security code is labelled
 * "Security code (CSC)" with autocomplete off. Confirmation: schema.org
 * EventReservation and a visible "Order #".
 */
import { code, expired, gate, guest, hold, search, pay, type SiteCtx } from '../core.ts';
import { html, htmlRes, jsonLd, longDate, money, ok, page, raw, redirect, shortDateUS, time12, type Req, type Res, type SafeHtml } from '../kit.ts';
import type { ActivitySearch, Booking, FormState, SearchRecord } from '../../engine/types.ts';

const CARD = 'Mastercard ending in 5100';
const CSS = `body{font-family:Averta,Arial,sans-serif;margin:0;color:#121212}header{background:#024ddf;color:#fff;padding:12px 24px;font-size:22px;font-weight:800}
main{max-width:800px;margin:20px auto;padding:0 16px}.events{list-style:none;padding:0}.events li{border-bottom:1px solid #ddd;padding:12px 0;display:flex;justify-content:space-between}
.btn{background:#024ddf;color:#fff;border:0;border-radius:4px;padding:10px 20px;font-weight:700}.types label{display:block;border:1px solid #ccc;border-radius:6px;padding:10px;margin:6px 0}
.qty{display:flex;gap:10px;align-items:center}.qty button{width:34px;height:34px;border-radius:50%}.err{color:#d0021b}.timer{background:#fff3cd;padding:8px}label.f{display:block;margin-top:8px}`;

function layout(title: string, body: SafeHtml, head?: SafeHtml): string {
  return page({ title: `${title} | Tickety`, css: CSS, head, body: html`<header>tickety</header><main>${body}</main>` });
}
function e(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? html`<span class="err" id="${n}-error" role="alert">${form.errors[n]}</span>` : raw('');
}
function inv(form: FormState, n: string): SafeHtml {
  return form.errors[n] ? raw(` aria-invalid="true" aria-describedby="${n}-error"`) : raw('');
}

function home(form: FormState): string {
  const v = form.values;
  return layout('Tickets for concerts, sports, arts and theater', html`<form method="get" action="/search" role="search">
<input type="search" name="q" aria-label="Search for artists, venues and events" placeholder="Search for artists, venues and events" value="${v.q ?? ''}"${inv(form, 'q')}>${e(form, 'q')}
<input name="loc" aria-label="City or zip code" placeholder="City or zip code" value="${v.loc ?? ''}"${inv(form, 'loc')}>${e(form, 'loc')}
<input type="date" name="date" aria-label="Date" value="${v.date ?? ''}"${inv(form, 'date')}>${e(form, 'date')}
<button class="btn" type="submit">Search</button></form><h1>Live events near you</h1>`);
}

function aq(s: SearchRecord): ActivitySearch {
  return s.query as ActivitySearch;
}

function eventList(s: SearchRecord): string {
  const q = aq(s);
  const start = s.options[0]?.startTime ?? '19:30';
  return layout(`${q.eventName} tickets`, html`<h1>Results for “${q.eventName}”</h1><ul class="events"><li><div><strong>${shortDateUS(q.eventDate)}</strong> · ${time12(start)}<br>${q.eventName}<br>${q.city} — City Arena</div>
<a class="btn" href="/event/${s.id}">Find tickets</a></li></ul>`);
}

function eventPage(s: SearchRecord, message?: string): string {
  const q = aq(s);
  const g = gate(s);
  const start = s.options[0]?.startTime ?? '19:30';
  const ld = jsonLd({ '@context': 'https://schema.org', '@type': 'Event', name: q.eventName, startDate: `${q.eventDate}T${start}:00`, location: { '@type': 'Place', name: 'City Arena', address: q.city },
    offers: s.options.map((o) => ({ '@type': 'Offer', name: o.title, price: (o.unitPrice / 100).toFixed(2), priceCurrency: 'EUR', availability: o.available ? 'https://schema.org/InStock' : 'https://schema.org/SoldOut' })) });
  const head = html`<h1>${q.eventName}</h1><p>${longDate(q.eventDate)} · ${time12(start)} · City Arena, ${q.city}</p>`;
  if (g === 'captcha') {
    return layout('Verify you are human', html`<h1>Your browsing activity has been paused</h1><p>Before we can show tickets, please verify you are human.</p>
<label><input type="checkbox" id="human"> I am human</label><p id="human-msg" class="err" role="alert" hidden>We could not verify you. Please try again later.</p>
<script>document.getElementById('human').onchange=function(){this.checked=false;document.getElementById('human-msg').hidden=false;};</script>`);
  }
  if (g === 'members') {
    return layout('Sign in', html`${head}<h2>Verified Fan presale</h2><p>Sign in to your Tickety account to unlock tickets for this presale.</p>${message ? html`<p class="err" role="alert">${message}</p>` : ''}
<form method="post" action="/event/${s.id}/sign-in"><label class="f" for="email">Email address</label><input id="email" name="email" type="email" autocomplete="username"><label class="f" for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password"><p><button class="btn" type="submit">Sign in</button></p></form>`);
  }
  if (g === 'sold-out') return layout(q.eventName, html`${head}<p role="alert"><strong>Sorry, no tickets are currently available for this event.</strong></p>`, ld);
  const first = s.options.find((o) => o.available);
  return layout(q.eventName, html`${head}${message ? html`<p class="err" role="alert">${message}</p>` : ''}<form method="post" action="/event/${s.id}/tickets" id="tix">
<fieldset class="types"><legend>Ticket type</legend>${s.options.map((o) => html`<label><input type="radio" name="ticket_type" value="${o.id}" data-price="${o.unitPrice}"${raw(o.available ? '' : ' disabled')}${raw(o === first ? ' checked' : '')}> ${o.title} — ${o.description ?? ''} — ${money(o.unitPrice, 'EUR')} each${o.available ? '' : ' (Sold out)'}</label>`)}</fieldset>
<span id="qty-l">Quantity</span><div class="qty" role="group" aria-labelledby="qty-l"><button type="button" aria-label="Remove a ticket" data-d="-1">−</button><span id="qty-v" aria-live="polite">${q.tickets}</span><input type="hidden" name="qty" value="${q.tickets}"><button type="button" aria-label="Add a ticket" data-d="1">+</button></div>
<p>Ticket limit: 10 per order. Total: <strong id="total"></strong></p><button class="btn" type="submit">Get tickets</button></form>${raw(`<script>(function(){var f=document.getElementById('tix');
function upd(){var t=f.querySelector('input[name=ticket_type]:checked');var n=+f.qty.value;document.getElementById('qty-v').textContent=n;document.getElementById('total').textContent=t?'€'+(t.dataset.price*n/100).toFixed(2):'—';}
f.querySelectorAll('.qty button').forEach(function(b){b.onclick=function(){f.qty.value=Math.min(10,Math.max(1,+f.qty.value+ +b.dataset.d));upd();};});f.addEventListener('change',upd);upd();})();</script>`)}`, ld);
}

function timer(b: Booking): SafeHtml {
  const left = Math.max(0, Math.ceil((b.holdExpiresAt - Date.now()) / 1000));
  return html`<p class="timer" role="timer" data-expires="${new Date(b.holdExpiresAt).toISOString()}">Tickets held for <strong id="left">${String(Math.floor(left / 60)).padStart(2, '0')}:${String(left % 60).padStart(2, '0')}</strong></p>
${raw(`<script>(function(){var el=document.getElementById('left'),end=Date.parse(document.querySelector('[role=timer]').dataset.expires);setInterval(function(){var s=Math.max(0,Math.ceil((end-Date.now())/1000));el.textContent=String(Math.floor(s/60)).padStart(2,'0')+':'+String(s%60).padStart(2,'0');},1000);})();</script>`)}`;
}

function order(b: Booking): SafeHtml {
  const q = aq(b.search);
  return html`<section aria-labelledby="order-h"><h2 id="order-h">Order summary</h2><p><strong>${q.eventName}</strong></p><p>${longDate(q.eventDate)} · ${time12(b.option.startTime ?? '19:30')} · City Arena, ${q.city}</p>
<p>${b.option.quantity} × ${b.option.title} @ ${money(b.option.unitPrice, 'EUR')}</p><p>Total: <strong>${money(b.option.total, 'EUR')}</strong></p></section>`;
}

const GUEST_NAMES = { first: 'given_name', last: 'family_name', email: 'email', mobile: 'tel' };

function contact(b: Booking, form: FormState): string {
  const v = form.values;
  const f = (n: string, label: string, ac: string, type = 'text') => html`<label class="f" for="${n}">${label}</label><input id="${n}" name="${n}" type="${type}" autocomplete="${ac}" value="${v[n] ?? ''}"${inv(form, n)}>${e(form, n)}`;
  return layout('Checkout', html`${timer(b)}${order(b)}<form method="post" action="/checkout/${b.id}"><h2>Contact information</h2>
${f('first', 'First Name', 'given-name')}${f('last', 'Last Name', 'family-name')}${f('email', 'Email Address', 'email', 'email')}${f('email_confirm', 'Confirm Email Address', 'email', 'email')}${f('mobile', 'Mobile Number', 'tel', 'tel')}
<p><button class="btn" type="submit">Next</button></p></form>`);
}

function review(b: Booking): string {
  const g = b.guest!;
  return layout('Review your order', html`${timer(b)}<h1>Review your order</h1>${order(b)}<p>Tickets for ${g.givenName} ${g.familyName}, sent to ${g.email}</p><p>Pay with: ${CARD}</p>
<form method="post" action="/checkout/${b.id}/review"><button class="btn" type="submit">Continue to payment</button></form>`);
}

function payment(b: Booking, error?: string): string {
  if (expired(b)) return layout('Time expired', html`<h1>Your time has expired</h1><p role="alert">The tickets were released. Please try again.</p>`);
  return layout('Payment', html`${timer(b)}${order(b)}<form method="post" action="/checkout/${b.id}/payment"><h2>Payment</h2><p>Card on file: <strong>${CARD}</strong></p>
<label class="f" for="payment_csc">Security code (CSC)</label><input id="payment_csc" name="payment_csc" autocomplete="off" inputmode="numeric" maxlength="4"${error ? raw(' aria-invalid="true" aria-describedby="payment_csc-error"') : ''}>${error ? html`<span class="err" id="payment_csc-error" role="alert">${error}</span>` : ''}
<p>By placing this order you agree to the Terms of Use.</p><button class="btn" type="submit">Place order</button></form>`);
}

function confirmed(b: Booking): string {
  const q = aq(b.search);
  const ld = jsonLd({ '@context': 'https://schema.org', '@type': 'EventReservation', reservationNumber: b.confirmation!.code, reservationStatus: 'https://schema.org/ReservationConfirmed',
    underName: { '@type': 'Person', name: `${b.guest!.givenName} ${b.guest!.familyName}` }, reservationFor: { '@type': 'Event', name: q.eventName, startDate: `${q.eventDate}T${b.option.startTime ?? '19:30'}:00`, location: { '@type': 'Place', name: 'City Arena', address: q.city } },
    numSeats: b.option.quantity });
  return layout('Order confirmed', html`<h1>Thanks! Your order is confirmed</h1><p>Order # <strong>${b.confirmation!.code}</strong></p>${order(b)}`, ld);
}

export function handle(req: Req, ctx: SiteCtx): Res {
  const { path, method } = req;
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/') return ok(home({ values: { q: req.query.get('q') ?? '', loc: req.query.get('loc') ?? '', date: req.query.get('date') ?? '' }, errors: {} }));
  if (method === 'GET' && path === '/search') {
    const values = { q: (req.query.get('q') ?? '').trim(), loc: (req.query.get('loc') ?? '').trim(), date: (req.query.get('date') ?? '').trim() };
    const r = search(ctx, { event_name: values.q, city: values.loc, event_date: values.date, tickets: '2', seat_type: '' });
    if (!r.record) {
      const names: Record<string, string> = { event_name: 'q', city: 'loc', event_date: 'date' };
      return htmlRes(422, home({ values, errors: Object.fromEntries(Object.entries(r.form.errors).map(([k, msg]) => [names[k] ?? k, msg])) }));
    }
    return ok(eventList(r.record));
  }
  if ((m = /^\/event\/([^/]+)(\/tickets|\/sign-in)?$/.exec(path))) {
    const s = ctx.store.searches.get(m[1] ?? '');
    if (!s) return htmlRes(404, layout('Not found', html`<h1>Event not found</h1>`));
    if (m[2] === '/sign-in' && method === 'POST') return htmlRes(401, eventPage(s, 'Your email or password is incorrect.'));
    if (m[2] === '/tickets' && method === 'POST') {
      if (gate(s)) return redirect(`/event/${s.id}`);
      const q = aq(s);
      // The quantity is chosen here, so the offer is priced again for it.
      const priced = search(ctx, { event_name: q.eventName, city: q.city, event_date: q.eventDate, tickets: req.form.get('qty') ?? '', seat_type: q.seatType });
      if (!priced.record) return htmlRes(422, eventPage(s, priced.form.errors.tickets ?? 'Choose how many tickets you want.'));
      priced.record.behaviour = s.behaviour;
      priced.record.options = priced.record.options.map((o, i) => ({ ...o, available: s.options[i]?.available ?? o.available }));
      const b = hold(ctx, priced.record, req.form.get('ticket_type') ?? '');
      return typeof b === 'string' ? htmlRes(409, eventPage(s, b)) : redirect(`/checkout/${b.id}`);
    }
    if (!m[2] && method === 'GET') return ok(eventPage(s));
  }
  if ((m = /^\/checkout\/([^/]+)(\/review|\/payment)?$/.exec(path))) {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (!b) return htmlRes(404, layout('Not found', html`<h1>Order not found</h1>`));
    const step = m[2] ?? '';
    if (b.confirmation) return redirect(`/orders/${b.id}`);
    if (step === '') {
      if (method === 'POST') {
        const form = guest(b, req.form, GUEST_NAMES);
        const confirmMismatch = (req.form.get('email') ?? '').trim().toLowerCase() !== (req.form.get('email_confirm') ?? '').trim().toLowerCase();
        if (form || confirmMismatch) {
          const shown = form ?? { values: Object.fromEntries(req.form), errors: {} };
          if (confirmMismatch) shown.errors.email_confirm = 'Email addresses must match.';
          if (!form) b.guest = null;
          return htmlRes(422, contact(b, shown));
        }
        return redirect(`/checkout/${b.id}/review`);
      }
      return ok(contact(b, { values: {}, errors: {} }));
    }
    if (!b.guest) return redirect(`/checkout/${b.id}`);
    if (step === '/review') {
      if (method === 'POST') {
        b.reviewed = true;
        return redirect(`/checkout/${b.id}/payment`);
      }
      return ok(review(b));
    }
    if (step === '/payment') {
      if (!b.reviewed) return redirect(`/checkout/${b.id}/review`);
      if (method === 'POST') {
        const err = pay(ctx, b, req.form.get('payment_csc') ?? '', () => `${code.digits(2)}-${code.digits(5)}/${code.letters(3)}`);
        return err ? htmlRes(expired(b) ? 410 : 422, payment(b, err)) : redirect(`/orders/${b.id}`);
      }
      return ok(payment(b));
    }
  }
  if ((m = /^\/orders\/([^/]+)$/.exec(path)) && method === 'GET') {
    const b = ctx.store.bookings.get(m[1] ?? '');
    if (b?.confirmation) return ok(confirmed(b));
    if (b) return redirect(`/checkout/${b.id}/payment`);
  }
  return htmlRes(404, layout('Not found', html`<h1>Page not found</h1>`));
}
