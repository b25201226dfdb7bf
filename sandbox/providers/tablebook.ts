/** TableBook — first-choice restaurant provider. Red, card-grid slot picker, 24-hour times, EUR. */
import { alternativesPage, brokenPage, captchaWall, control, errorSummary, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { longDate, money, venueFacts } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FormState, RestaurantSearch, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font-family:Georgia,serif;background:#fbf7f4;color:#2b1d16}
.tb-top{background:#b3261e;color:#fff;padding:14px 28px;display:flex;justify-content:space-between;align-items:center}
.tb-top a{color:#fff;text-decoration:none;font-weight:bold;font-size:1.4em}
.tb-main{max-width:760px;margin:24px auto;padding:0 20px}
.tb-card{background:#fff;border:1px solid #e6d8cf;border-radius:10px;padding:20px 24px;margin-bottom:18px}
.tb-field{display:flex;flex-direction:column;margin-bottom:12px}.tb-field label{font-weight:bold;margin-bottom:4px}
.tb-field input,.tb-field textarea{padding:8px;border:1px solid #c9b8ad;border-radius:6px;font-size:1em}
.tb-row{display:grid;grid-template-columns:repeat(auto-fit,minmax(140px,1fr));gap:12px}
.tb-btn{background:#b3261e;color:#fff;border:0;border-radius:6px;padding:10px 18px;font-size:1em;cursor:pointer}
.tb-slots{display:grid;grid-template-columns:repeat(4,1fr);gap:10px}
.tb-slot{padding:12px;border:2px solid #b3261e;background:#fff;border-radius:8px;cursor:pointer;font-size:1.1em}
.tb-slot[disabled]{border-color:#ccc;color:#999;text-decoration:line-through;cursor:not-allowed}
.tb-slot small{display:block;font-size:.7em;color:#7a6a60}
.tb-err{color:#b3261e}.tb-errors{border-left:4px solid #b3261e;padding:4px 12px;background:#fdecea}
.tb-hold{background:#fff4d6;border:1px solid #e6c46a;padding:10px 14px;border-radius:6px}
.tb-dl{display:grid;grid-template-columns:160px 1fr;gap:6px 12px}.tb-dl dt{color:#7a6a60}
.tb-foot{text-align:center;color:#7a6a60;font-size:.85em;padding:30px}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} · TableBook`,
  head: CSS,
  body: html`<header class="tb-top"><a href="/" id="tb-logo">TableBook</a><nav><span>Reserve the best tables</span></nav></header>
<main class="tb-main" id="tb-main">${body}</main>
<footer class="tb-foot">© TableBook · Reservations are subject to the restaurant's policies</footer>${HOLD_SCRIPT}`,
});

function field(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="tb-field">${html`<label for="${id}">${label}</label>`}${input}${fieldError(form, name, id, 'tb-err')}</div>`;
}

const q = (s: SearchRecord) => s.query as RestaurantSearch;

function facts(r: RestaurantSearch): SafeHtml {
  const { cuisine, neighbourhood } = venueFacts(r.restaurantName, r.city);
  return html`<p id="tb-venue-facts">${cuisine} · ${neighbourhood}</p>`;
}

function summary(s: SearchRecord): SafeHtml {
  const r = q(s);
  return html`<p class="tb-summary" id="tb-search-summary"><strong>${r.restaurantName}</strong>, ${r.city} · ${longDate(r.date)} · ${r.time} · ${r.partySize} ${r.partySize === 1 ? 'guest' : 'guests'}</p>`;
}

function holdBox(hold: HoldInfo): SafeHtml {
  if (hold.expired) {
    return html`<div class="tb-hold tb-hold--expired" id="tb-hold"${holdAttrs(hold)} role="alert"><strong>Your hold has expired.</strong> This table is no longer reserved for you. <a href="/">Start a new search</a>.</div>`;
  }
  return html`<div class="tb-hold" id="tb-hold"${holdAttrs(hold)}>We're holding this table for you until <time datetime="${hold.expiresAt.toISOString()}">${utcClock(hold.expiresAt)}</time> (<span data-hold-remaining>${mmss(hold.secondsLeft)}</span> left).</div>`;
}

function bookingFacts(b: Booking, p: ProviderDef): SafeHtml {
  const r = q(b.search);
  const g = b.guest;
  return html`<dl class="tb-dl" id="tb-review-details">
<dt>Restaurant</dt><dd data-field="restaurant">${r.restaurantName}</dd>
<dt>City</dt><dd data-field="city">${r.city}</dd>
<dt>Date</dt><dd data-field="date">${longDate(r.date)}</dd>
<dt>Time</dt><dd data-field="time">${b.option.time}</dd>
<dt>Party size</dt><dd data-field="party-size">${r.partySize}</dd>
<dt>Seating</dt><dd data-field="seating">${b.option.description}</dd>
${g ? html`<dt>Name</dt><dd data-field="name">${g.givenName} ${g.familyName}</dd>
<dt>Email</dt><dd data-field="email">${g.email}</dd>
<dt>Phone</dt><dd data-field="tel">${g.tel}</dd>
<dt>Special requests</dt><dd data-field="requests">${g.specialRequests || '—'}</dd>` : ''}
<dt>${b.search.behaviour === 'walk-in' ? 'Payment' : 'Deposit'}</dt><dd data-field="total">${b.search.behaviour === 'walk-in' ? 'Pay at the venue' : money(b.option.total, p.currency)}</dd>
</dl>`;
}

export const tablebook: ProviderDef = {
  id: 'tablebook',
  scenario: 'restaurant',
  name: 'TableBook',
  firstChoice: true,
  cookieName: 'tb_session',
  selectField: 'slot',
  cardCodeField: 'cvc',
  cardOnFile: 'Visa •••• 4242',
  currency: 'EUR',
  paths: {
    home: '/',
    search: '/search',
    results: '/restaurants/availability/:sid',
    select: '/restaurants/availability/:sid',
    signIn: '/account/sign-in',
    verify: '/challenge',
    details: '/reservations/:bid/guest',
    review: '/reservations/:bid/review',
    payment: '/reservations/:bid/payment',
    confirmation: '/reservations/:bid/confirmed',
  },
  confirmationCode: () => `TB-${randomCode(6)}`,
  views: {
    home: (form) => layout('Find a table', html`
<section class="tb-card"><h1 id="tb-search-heading">Find a table</h1>
${errorSummary(form, 'tb-errors')}
<form method="post" action="/search" id="tb-search-form" novalidate>
${field(form, 'tb-restaurant', 'restaurant_name', 'Restaurant', control(form, { id: 'tb-restaurant', name: 'restaurant_name', required: true, placeholder: 'e.g. Chez Nous' }))}
${field(form, 'tb-city', 'city', 'City', control(form, { id: 'tb-city', name: 'city', autocomplete: 'address-level2', required: true }))}
<div class="tb-row">
${field(form, 'tb-date', 'date', 'Date', control(form, { id: 'tb-date', name: 'date', type: 'date', required: true }))}
${field(form, 'tb-time', 'time', 'Time', control(form, { id: 'tb-time', name: 'time', type: 'time', required: true, extra: html` step="900"` }))}
${field(form, 'tb-party', 'party_size', 'Party size', control(form, { id: 'tb-party', name: 'party_size', type: 'number', min: 1, max: 20, required: true, inputmode: 'numeric' }))}
</div>
<button type="submit" class="tb-btn" id="tb-find-table">Find a table</button>
</form></section>`),

    results: (s, error) => layout('Available times', html`
<section class="tb-card" id="tb-availability"><h1>Available times</h1>${summary(s)}
${facts(q(s))}
${error ? html`<p class="tb-err" role="alert" id="tb-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(tablebook.paths.select, { sid: s.id })}" id="tb-slot-form">
<div class="tb-slots" id="tb-slots" role="list">
${s.options.map((o) => html`<button type="submit" role="listitem" class="tb-slot" name="slot" value="${o.id}" data-slot="${o.time}" data-available="${o.available ? 'true' : 'false'}"${o.available ? '' : html` disabled aria-disabled="true"`}>${o.time}<small>${o.available ? `${o.description} · ${money(o.total, 'EUR')} deposit` : 'Fully booked'}</small></button>`)}
</div></form>
<p>A deposit of ${money(s.options[0]?.unitPrice ?? 0, 'EUR')} per guest secures your table and is deducted from your bill.</p>
<p><a href="/" id="tb-modify-search">Modify search</a></p></section>`),

    noAvailability: (s) => layout('No availability', html`
<section class="tb-card" id="tb-availability"><h1>Available times</h1>${summary(s)}
<div id="tb-no-availability" data-testid="no-availability" role="status"><h2>No tables available</h2><p>Sorry, there is no availability for your party on this date. Try another date or time.</p></div>
<p><a href="/" id="tb-modify-search">Modify search</a></p></section>`),

    details: (b, form) => layout('Guest details', html`
<section class="tb-card"><h1>Who is the reservation for?</h1>${summary(b.search)}
<p>Table at <strong>${b.option.time}</strong> · ${b.option.description}</p>
${errorSummary(form, 'tb-errors')}
<form method="post" action="${fillPath(tablebook.paths.details, { bid: b.id })}" id="tb-guest-form" novalidate>
<div class="tb-row">
${field(form, 'tb-given-name', 'given_name', 'First name', control(form, { id: 'tb-given-name', name: 'given_name', autocomplete: 'given-name', required: true }))}
${field(form, 'tb-family-name', 'family_name', 'Last name', control(form, { id: 'tb-family-name', name: 'family_name', autocomplete: 'family-name', required: true }))}
</div>
${field(form, 'tb-email', 'email', 'Email', control(form, { id: 'tb-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${field(form, 'tb-tel', 'tel', 'Mobile number', control(form, { id: 'tb-tel', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
${field(form, 'tb-requests', 'special_requests', 'Special requests (optional)', textarea(form, { id: 'tb-requests', name: 'special_requests' }))}
<button type="submit" class="tb-btn" id="tb-guest-continue">Continue</button>
</form></section>`),

    review: (b, hold) => layout('Review your reservation', html`
<section class="tb-card" id="tb-review"><h1>Review your reservation</h1>
${holdBox(hold)}
${bookingFacts(b, tablebook)}
${hold.expired ? '' : html`<form method="post" action="${fillPath(tablebook.paths.review, { bid: b.id })}" id="tb-review-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="tb-pay-at-venue">No card needed — you pay at the restaurant.</p><button type="submit" class="tb-btn" id="tb-confirm-booking">Confirm booking</button>`
    : html`<button type="submit" class="tb-btn" id="tb-review-continue">Continue to payment</button>`}
</form>`}
<p><a href="${fillPath(tablebook.paths.details, { bid: b.id })}" id="tb-edit-guest">Edit guest details</a></p></section>`),

    payment: (b, hold, error) => layout(hold.expired ? 'Hold expired' : 'Payment', html`
<section class="tb-card" id="tb-payment"><h1>Secure your table</h1>
${holdBox(hold)}
${hold.expired ? html`<p id="tb-payment-unavailable">Payment is no longer possible for this reservation.</p>` : html`
<p>Deposit due now: <strong id="tb-amount">${money(b.option.total, 'EUR')}</strong></p>
<form method="post" action="${fillPath(tablebook.paths.payment, { bid: b.id })}" id="tb-payment-form" novalidate>
<fieldset><legend>Card on file</legend><p id="tb-card-on-file" data-testid="card-on-file">${tablebook.cardOnFile}</p><p class="tb-note">Expires 08/29 · ${b.guest?.givenName} ${b.guest?.familyName}</p></fieldset>
${error ? html`<p class="tb-err" role="alert" id="tb-payment-error">${error}</p>` : ''}
<div class="tb-field" style="max-width:140px"><label for="tb-cvc">CVC</label><input id="tb-cvc" name="cvc" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" pattern="[0-9]{3,4}" required${error ? html` aria-invalid="true"` : ''}></div>
<button type="submit" class="tb-btn" id="tb-pay">Pay ${money(b.option.total, 'EUR')} deposit</button>
</form>`}</section>`),

    confirmation: (b) => layout('Reservation Confirmed', html`
<section class="tb-card" id="tb-confirmation"><h1>Your table is booked!</h1>
<p>Confirmation number: <strong id="tb-confirmation-code" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</strong></p>
${bookingFacts(b, tablebook)}
<p>${b.confirmation?.paidWithCard ? `Deposit of ${money(b.option.total, 'EUR')} charged to ${tablebook.cardOnFile}.` : 'Nothing was charged. Please pay at the restaurant.'}</p>
<p>A confirmation email has been sent to ${b.guest?.email}.</p></section>`),

    signIn: (s, error) => signInWall(tablebook, layout, s, error),
    captcha: (s, error) => captchaWall(tablebook, layout, s, error),
    broken: (s) => brokenPage(tablebook, s),
    alternatives: (s) => alternativesPage(tablebook, layout, s),
    error: (status, title, message, retryHref) => layout(title, html`
<section class="tb-card" id="tb-error" data-status="${status}"><h1>${title}</h1><p id="tb-error-message">${message}</p>
${retryHref ? html`<p><a href="${retryHref}" class="tb-btn" id="tb-try-again">Try again</a></p>` : ''}</section>`),
  },
};
