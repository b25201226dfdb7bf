/** TixHub — first-choice activity provider. Orange, section cards with radio inputs, USD. */
import { brokenPage, captchaWall, control, errorSummary, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { longDate, money } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { ActivitySearch, Booking, FormState, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font-family:Arial,sans-serif;background:#1c1c1c;color:#222}
#tx-top{background:#ff5a1f;padding:12px 30px;color:#fff}#tx-top a{color:#fff;font-weight:900;font-size:26px;text-decoration:none;font-style:italic}
.tx-sheet{max-width:820px;margin:0 auto;background:#fff;min-height:80vh;padding:26px 34px}
.tx-line{margin-bottom:12px}.tx-line label{font-weight:bold;display:block}.tx-line input,.tx-line textarea{width:60%;padding:8px;border:2px solid #ddd;border-radius:2px}
.tx-go{background:#ff5a1f;border:0;color:#fff;padding:12px 28px;font-size:16px;font-weight:bold;text-transform:uppercase;cursor:pointer}
#tx-sections{display:flex;flex-direction:column;gap:10px;margin-bottom:16px}
.tx-section{display:flex;gap:14px;align-items:center;border:2px solid #ffd3c2;padding:12px;border-radius:4px}
.tx-section[data-available=false]{border-color:#eee;color:#aaa}
.tx-miss{color:#d00}.tx-errors{border:2px solid #d00;padding:6px 14px}
.tx-timer{background:#222;color:#ffb38f;padding:8px 14px;font-family:monospace;margin-bottom:12px}
.tx-order td{padding:4px 18px 4px 0}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} - TixHub`,
  head: CSS,
  body: html`<div id="tx-top"><a href="/">TixHub</a></div><div class="tx-sheet">${body}</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as ActivitySearch;

function line(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="tx-line"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'tx-miss')}</div>`;
}

function eventLine(s: SearchRecord): SafeHtml {
  const e = q(s);
  return html`<p id="tx-event-line"><b>${e.eventName}</b> — ${e.city}, ${longDate(e.eventDate)} · ${e.tickets} ticket${e.tickets === 1 ? '' : 's'}</p>`;
}

function timer(h: HoldInfo): SafeHtml {
  return h.expired
    ? html`<div class="tx-timer" id="tx-timer"${holdAttrs(h)} role="alert">TIME EXPIRED — your tickets were released. <a href="/" style="color:#fff">Find tickets again</a></div>`
    : html`<div class="tx-timer" id="tx-timer"${holdAttrs(h)}>Tickets reserved: <span data-hold-remaining>${mmss(h.secondsLeft)}</span> left (until ${utcClock(h.expiresAt)})</div>`;
}

function order(b: Booking): SafeHtml {
  const e = q(b.search);
  const g = b.guest;
  return html`<table class="tx-order" id="tx-order"><tbody>
<tr><td>Event</td><td>${e.eventName}</td></tr><tr><td>City</td><td>${e.city}</td></tr>
<tr><td>Date</td><td>${longDate(e.eventDate)}, doors ${b.option.startTime}</td></tr>
<tr><td>Section</td><td>${b.option.title} (${b.option.description})</td></tr>
<tr><td>Tickets</td><td>${b.option.quantity} × ${money(b.option.unitPrice, 'USD')}</td></tr>
${g ? html`<tr><td>Buyer</td><td>${g.givenName} ${g.familyName}</td></tr><tr><td>Email</td><td>${g.email}</td></tr><tr><td>Phone</td><td>${g.tel}</td></tr><tr><td>Notes</td><td>${g.specialRequests || '—'}</td></tr>` : ''}
<tr><td>Order total</td><td><b>${money(b.option.total, 'USD')}</b>${b.search.behaviour === 'walk-in' ? ' — pay at the box office' : ''}</td></tr>
</tbody></table>`;
}

export const tixhub: ProviderDef = {
  id: 'tixhub',
  scenario: 'activity',
  name: 'TixHub',
  firstChoice: true,
  cookieName: 'TIXHUB_SID',
  selectField: 'section',
  cardCodeField: 'csc',
  cardOnFile: 'Mastercard ending in 5100',
  currency: 'USD',
  paths: {
    home: '/',
    search: '/events/search',
    results: '/events/:sid/tickets',
    select: '/events/:sid/tickets',
    signIn: '/fan/sign-in',
    verify: '/fan/verify',
    details: '/orders/:bid/buyer',
    review: '/orders/:bid/review',
    payment: '/orders/:bid/payment',
    confirmation: '/orders/:bid/tickets',
  },
  confirmationCode: () => `TXH-${randomCode(4, '0123456789')}-${randomCode(4, '0123456789')}`,
  views: {
    home: (form) => layout('Tickets for concerts, sports & theatre', html`<h1 id="tx-heading">Find tickets</h1>
${errorSummary(form, 'tx-errors', 'Fix these to continue:')}
<form id="tx-search" method="post" action="/events/search" novalidate>
${line(form, 'tx-event', 'event_name', 'Event or performer', control(form, { id: 'tx-event', name: 'event_name', required: true }))}
${line(form, 'tx-city', 'city', 'City', control(form, { id: 'tx-city', name: 'city', autocomplete: 'address-level2', required: true }))}
${line(form, 'tx-date', 'event_date', 'Event date', control(form, { id: 'tx-date', name: 'event_date', type: 'date', required: true }))}
${line(form, 'tx-qty', 'tickets', 'Number of tickets', control(form, { id: 'tx-qty', name: 'tickets', type: 'number', min: 1, max: 10, required: true }))}
${line(form, 'tx-seat', 'seat_type', 'Seat type (optional)', control(form, { id: 'tx-seat', name: 'seat_type', placeholder: 'Standard, Premium, VIP' }))}
<button class="tx-go" id="tx-find" type="submit">Find tickets</button></form>`),

    results: (s, error) => layout('Select tickets', html`<h1>Select tickets</h1>${eventLine(s)}
${error ? html`<p class="tx-miss" role="alert" id="tx-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(tixhub.paths.select, { sid: s.id })}" id="tx-sections-form"><div id="tx-sections">
${s.options.map((o) => html`<label class="tx-section" data-section="${o.id}" data-available="${o.available ? 'true' : 'false'}" for="sec-${o.id}">
<input type="radio" name="section" id="sec-${o.id}" value="${o.id}"${o.available ? '' : html` disabled`}>
<span><b>${o.title}</b><br><small>${o.description}${o.matchesPreference ? ' · matches your seat type' : ''}</small></span>
<span style="margin-left:auto">${o.available ? `${money(o.unitPrice, 'USD')} each` : 'SOLD OUT'}</span></label>`)}
</div><button class="tx-go" id="tx-get-tickets" type="submit">Get tickets</button></form>`),

    noAvailability: (s) => layout('Select tickets', html`<h1>Select tickets</h1>${eventLine(s)}
<div id="tx-sold-out" data-testid="no-availability" role="status"><h2>Sold out</h2><p>There are no tickets available for this event.</p></div><p><a href="/">Search other events</a></p>`),

    details: (b, form) => layout('Buyer information', html`<h1>Buyer information</h1>${eventLine(b.search)}<p>Section: <b>${b.option.title}</b></p>
${errorSummary(form, 'tx-errors', 'Fix these to continue:')}
<form id="tx-buyer-form" method="post" action="${fillPath(tixhub.paths.details, { bid: b.id })}" novalidate>
${line(form, 'tx-first', 'given_name', 'First name', control(form, { id: 'tx-first', name: 'given_name', autocomplete: 'given-name', required: true }))}
${line(form, 'tx-last', 'family_name', 'Last name', control(form, { id: 'tx-last', name: 'family_name', autocomplete: 'family-name', required: true }))}
${line(form, 'tx-email', 'email', 'Email (tickets are sent here)', control(form, { id: 'tx-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${line(form, 'tx-phone', 'tel', 'Mobile phone', control(form, { id: 'tx-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
${line(form, 'tx-notes', 'special_requests', 'Accessibility needs (optional)', textarea(form, { id: 'tx-notes', name: 'special_requests', rows: 2 }))}
<button class="tx-go" id="tx-buyer-next" type="submit">Continue</button></form>`),

    review: (b, h) => layout('Review order', html`<div id="tx-review"><h1>Review your order</h1>${timer(h)}${order(b)}
${h.expired ? '' : html`<form method="post" action="${fillPath(tixhub.paths.review, { bid: b.id })}" id="tx-review-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="tx-box-office">Pay at the box office when you collect your tickets.</p><button class="tx-go" id="tx-confirm" type="submit">Confirm booking</button>`
    : html`<button class="tx-go" id="tx-checkout" type="submit">Checkout</button>`}</form>`}</div>`),

    payment: (b, h, error) => layout(h.expired ? 'Time expired' : 'Payment', html`<div id="tx-payment"><h1>Payment</h1>${timer(h)}
${h.expired ? html`<p id="tx-payment-closed">Your reservation timed out; this order can't be paid.</p>` : html`
<form id="tx-payment-form" method="post" action="${fillPath(tixhub.paths.payment, { bid: b.id })}" novalidate>
<p>Pay with <b id="tx-card-on-file" data-testid="card-on-file">${tixhub.cardOnFile}</b> · total <b id="tx-amount">${money(b.option.total, 'USD')}</b></p>
${error ? html`<p class="tx-errors" role="alert" id="tx-payment-error">${error}</p>` : ''}
<div class="tx-line"><label for="tx-csc">CSC</label><input id="tx-csc" name="csc" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" style="width:80px" required></div>
<button class="tx-go" id="tx-place-order" type="submit">Place order</button></form>`}</div>`),

    confirmation: (b) => layout('Order Confirmed', html`<div id="tx-confirmation"><h1>You're going to ${q(b.search).eventName}!</h1>
<p>Order number: <b id="tx-order-number" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</b></p>${order(b)}</div>`),

    signIn: (s, error) => signInWall(tixhub, layout, s, error),
    captcha: (s, error) => captchaWall(tixhub, layout, s, error),
    broken: (s) => brokenPage(tixhub, s),
    error: (status, title, message, retryHref) => layout(title, html`<div id="tx-error" data-status="${status}"><h1>${title}</h1><p>${message}</p>
${retryHref ? html`<p><a href="${retryHref}" id="tx-retry">Try again</a></p>` : ''}</div>`),
  },
};
