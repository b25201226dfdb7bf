/** Roomly — second hotel provider. Purple, room cards each with its own form, EUR. */
import { alternativesPage, brokenPage, captchaWall, control, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { daysBetween, money, shortDateUS, venueFacts } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FormState, HotelSearch, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font-family:'Trebuchet MS',sans-serif;background:linear-gradient(#f3eefc,#fff);color:#2d2440;min-height:100vh}
.rm-nav{display:flex;justify-content:space-between;padding:18px 6%;border-bottom:1px solid #e2d9f3}
.rm-logo{color:#6b3fd4;font-size:26px;font-weight:900;text-decoration:none}
.rm-shell{max-width:880px;margin:30px auto;padding:0 18px}
.rm-panel{background:#fff;border-radius:16px;box-shadow:0 4px 18px #6b3fd41f;padding:26px}
.rm-steps{display:flex;gap:8px;list-style:none;padding:0;color:#9a8fb3;font-size:13px}.rm-steps .on{color:#6b3fd4;font-weight:bold}
.rm-in{margin-bottom:14px}.rm-in label{display:block;color:#6b3fd4;font-size:13px;margin-bottom:2px}
.rm-in input,.rm-in textarea{width:100%;box-sizing:border-box;border:0;border-bottom:2px solid #d4c6f2;padding:8px 2px;font-size:16px;background:transparent}
.rm-btn{background:#6b3fd4;color:#fff;border:0;border-radius:24px;padding:12px 26px;font-size:15px;cursor:pointer}
#rm-room-list{display:grid;grid-template-columns:repeat(auto-fill,minmax(240px,1fr));gap:16px}
.room-card{border:1px solid #e2d9f3;border-radius:12px;padding:16px}.room-card[data-sold-out=true]{opacity:.55}
.rm-badge{display:inline-block;background:#ffe3e3;color:#b00020;border-radius:10px;padding:2px 10px;font-size:12px}
.rm-match{background:#e3f7e9;color:#0a7a33}.rm-oops{color:#b00020;font-size:13px}
.rm-hold{border-radius:10px;background:#f3eefc;padding:10px 14px;margin:10px 0}
.rm-kv{display:grid;grid-template-columns:auto 1fr;gap:4px 18px}
</style>`;

const STEPS = ['Rooms', 'Guests', 'Review', 'Payment'];
function steps(active: number): SafeHtml {
  return html`<ol class="rm-steps" id="rm-steps">${STEPS.map((s, i) => html`<li class="${i === active ? 'on' : ''}">${i + 1}. ${s}</li>`)}</ol>`;
}

const layout: Layout = (title, body) => document({
  title: `Roomly — ${title}`,
  head: CSS,
  body: html`<nav class="rm-nav"><a class="rm-logo" href="/">roomly</a><span>Help · EUR €</span></nav><div class="rm-shell">${body}</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as HotelSearch;

function rating(h: HotelSearch): SafeHtml {
  const { stars, neighbourhood } = venueFacts(h.hotelName, h.city);
  return html`<p id="rm-rating" data-stars="${stars}">Rated ${stars} stars · ${neighbourhood}</p>`;
}

function inp(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="rm-in"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'rm-oops')}</div>`;
}

function holdBlock(hold: HoldInfo): SafeHtml {
  return hold.expired
    ? html`<div class="rm-hold" id="rm-hold"${holdAttrs(hold)} role="alert">⏰ Your room hold expired at ${utcClock(hold.expiresAt)}. Please <a href="/">start again</a>.</div>`
    : html`<div class="rm-hold" id="rm-hold"${holdAttrs(hold)}>⏳ Room reserved for you for <span data-hold-remaining>${mmss(hold.secondsLeft)}</span> (expires ${utcClock(hold.expiresAt)})</div>`;
}

function kv(b: Booking): SafeHtml {
  const h = q(b.search);
  const g = b.guest;
  const nights = daysBetween(h.checkIn, h.checkOut);
  return html`<div class="rm-kv" id="rm-kv">
<span>Property</span><b>${h.hotelName} · ${h.city}</b>
<span>Dates</span><b>${shortDateUS(h.checkIn)} → ${shortDateUS(h.checkOut)} (${nights} night${nights === 1 ? '' : 's'})</b>
<span>Room</span><b>${b.option.title}</b>
<span>Adults</span><b>${h.adults}</b>
${g ? html`<span>Lead guest</span><b>${g.givenName} ${g.familyName}</b><span>Email</span><b>${g.email}</b><span>Phone</span><b>${g.tel}</b><span>Requests</span><b>${g.specialRequests || '—'}</b>` : ''}
<span>Total</span><b>${money(b.option.total, 'EUR')}${b.search.behaviour === 'walk-in' ? ' (pay at hotel)' : ''}</b>
</div>`;
}

export const roomly: ProviderDef = {
  id: 'roomly',
  scenario: 'hotel',
  name: 'Roomly',
  firstChoice: false,
  cookieName: 'roomly_sid',
  selectField: 'room_type',
  cardCodeField: 'cvv',
  cardOnFile: 'Visa ending 1111',
  currency: 'EUR',
  paths: {
    home: '/',
    search: '/stays',
    results: '/stays/:sid',
    select: '/stays/:sid/select',
    signIn: '/members/login',
    verify: '/members/verify',
    details: '/checkout/:bid/guests',
    review: '/checkout/:bid/review',
    payment: '/checkout/:bid/payment',
    confirmation: '/checkout/:bid/complete',
  },
  confirmationCode: () => `RMY-${randomCode(4, 'ABCDEFGHJKLMNPQRSTUVWXYZ')}-${randomCode(4, 'ABCDEFGHJKLMNPQRSTUVWXYZ')}`,
  views: {
    home: (form) => layout('Hotels & stays', html`<div class="rm-panel"><h1 id="rm-hero">Stay somewhere lovely</h1>
${Object.keys(form.errors).length ? html`<p class="rm-oops" role="alert" id="rm-search-problems">Some details need attention.</p>` : ''}
<form id="searchForm" method="post" action="/stays">
${inp(form, 'rm-hotel-name', 'hotel_name', 'Hotel', control(form, { id: 'rm-hotel-name', name: 'hotel_name', required: true }))}
${inp(form, 'rm-city', 'city', 'Destination city', control(form, { id: 'rm-city', name: 'city', autocomplete: 'address-level2', required: true }))}
<div style="display:flex;gap:16px">
${inp(form, 'rm-checkin', 'check_in', 'Arrive', control(form, { id: 'rm-checkin', name: 'check_in', type: 'date', required: true }))}
${inp(form, 'rm-checkout', 'check_out', 'Leave', control(form, { id: 'rm-checkout', name: 'check_out', type: 'date', required: true }))}
${inp(form, 'rm-guests', 'adults', 'Adults', control(form, { id: 'rm-guests', name: 'adults', type: 'number', min: 1, max: 8, required: true }))}
</div>
${inp(form, 'rm-room', 'room_preference', 'Preferred room type (optional)', control(form, { id: 'rm-room', name: 'room_preference' }))}
<button class="rm-btn" id="rm-check" type="submit">Check availability</button></form></div>`),

    results: (s, error) => layout('Pick a room', html`<div class="rm-panel">${steps(0)}<h1>Pick a room at ${q(s).hotelName}</h1>
<p id="rm-dates">${shortDateUS(q(s).checkIn)} → ${shortDateUS(q(s).checkOut)} · ${q(s).adults} adult(s)</p>
${rating(q(s))}
${error ? html`<p class="rm-oops" role="alert" id="rm-select-error">${error}</p>` : ''}
<div id="rm-room-list">
${s.options.map((o) => html`<article class="room-card" data-room-id="${o.id}" data-sold-out="${o.available ? 'false' : 'true'}">
<h3>${o.title}</h3><p>${o.description}</p>${o.matchesPreference ? html`<p><span class="rm-badge rm-match">Your preference</span></p>` : ''}
<p><b>${money(o.unitPrice, 'EUR')}</b> / night · ${money(o.total, 'EUR')} total</p>
${o.available
    ? html`<form method="post" action="${fillPath(roomly.paths.select, { sid: s.id })}"><input type="hidden" name="room_type" value="${o.id}"><button class="rm-btn rm-select" type="submit">Select room</button></form>`
    : html`<span class="rm-badge">Sold out</span>`}
</article>`)}
</div></div>`),

    noAvailability: (s) => layout('Pick a room', html`<div class="rm-panel">${steps(0)}<h1>Pick a room at ${q(s).hotelName}</h1>
<div id="rm-nothing" data-testid="no-availability" role="status"><p><b>Fully booked.</b> No rooms are available for these dates.</p></div><p><a href="/">Try other dates</a></p></div>`),

    details: (b, form) => layout('Guest details', html`<div class="rm-panel">${steps(1)}<h1>Who's staying?</h1>
<p>${b.option.title} · ${q(b.search).hotelName}</p>
${Object.keys(form.errors).length ? html`<p class="rm-oops" role="alert" id="rm-guest-problems">Some details need attention.</p>` : ''}
<form id="guestForm" method="post" action="${fillPath(roomly.paths.details, { bid: b.id })}">
${inp(form, 'rm-given', 'given_name', 'Given name', control(form, { id: 'rm-given', name: 'given_name', autocomplete: 'given-name', required: true }))}
${inp(form, 'rm-family', 'family_name', 'Family name', control(form, { id: 'rm-family', name: 'family_name', autocomplete: 'family-name', required: true }))}
${inp(form, 'rm-mail', 'email', 'E-mail', control(form, { id: 'rm-mail', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${inp(form, 'rm-tel', 'tel', 'Telephone', control(form, { id: 'rm-tel', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
${inp(form, 'rm-notes', 'special_requests', 'Anything we should know?', textarea(form, { id: 'rm-notes', name: 'special_requests', rows: 2 }))}
<button class="rm-btn" id="rm-guests-next" type="submit">Continue to review</button></form></div>`),

    review: (b, hold) => layout('Review', html`<div class="rm-panel" id="rm-review">${steps(2)}<h1>Almost there</h1>${holdBlock(hold)}${kv(b)}
${hold.expired ? '' : html`<form method="post" action="${fillPath(roomly.paths.review, { bid: b.id })}" id="rm-review-form" style="margin-top:18px">
${b.search.behaviour === 'walk-in'
    ? html`<p id="rm-pay-later">Pay at the hotel on arrival — no card needed.</p><button class="rm-btn" id="rm-confirm" type="submit">Confirm booking</button>`
    : html`<button class="rm-btn" id="rm-go-pay" type="submit">Go to payment</button>`}</form>`}</div>`),

    payment: (b, hold, error) => layout(hold.expired ? 'Hold expired' : 'Payment', html`<div class="rm-panel" id="rm-payment">${steps(3)}<h1>Payment</h1>${holdBlock(hold)}
${hold.expired ? html`<p id="rm-cannot-pay">This checkout has expired and can't be paid.</p>` : html`
<form id="paymentForm" method="post" action="${fillPath(roomly.paths.payment, { bid: b.id })}">
<p>Saved card: <strong id="rm-card" data-testid="card-on-file">${roomly.cardOnFile}</strong></p>
${error ? html`<p class="rm-oops" role="alert" id="rm-pay-error">${error}</p>` : ''}
<div class="rm-in" style="max-width:160px"><label for="rm-cvv">CVV</label><input id="rm-cvv" name="cvv" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required></div>
<button class="rm-btn" id="rm-pay" type="submit">Pay ${money(b.option.total, 'EUR')}</button></form>`}</div>`),

    confirmation: (b) => layout('Booking Confirmed', html`<div class="rm-panel" id="rm-complete"><h1>🎉 You're all set!</h1>
<p>Booking code <code id="rm-booking-code" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</code></p>${kv(b)}</div>`),

    signIn: (s, error) => signInWall(roomly, layout, s, error),
    captcha: (s, error) => captchaWall(roomly, layout, s, error),
    broken: (s) => brokenPage(roomly, s),
    alternatives: (s) => alternativesPage(roomly, layout, s),
    error: (status, title, message, retryHref) => layout(title, html`<div class="rm-panel" id="rm-error" data-status="${status}"><h1>${title}</h1><p>${message}</p>
${retryHref ? html`<a class="rm-btn" href="${retryHref}" id="rm-retry">Try again</a>` : ''}</div>`),
  },
};
