/** StaySearch — first-choice hotel provider. Blue, room table with per-row Reserve buttons, USD. */
import { alternativesPage, brokenPage, captchaWall, control, errorSummary, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { daysBetween, longDate, money, venueFacts } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FormState, HotelSearch, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font:15px/1.45 -apple-system,Segoe UI,Roboto,sans-serif;color:#1a1a1a;background:#f5f7fa}
.ss-masthead{background:#003580;color:#fff;padding:16px 40px}.ss-masthead a{color:#fff;text-decoration:none;font-size:24px;font-weight:700}
.ss-page{max-width:1000px;margin:0 auto;padding:24px 40px}
.ss-box{background:#fff;border:1px solid #d6dde6;border-radius:8px;padding:20px;margin-bottom:16px}
.ss-grid{display:grid;grid-template-columns:1fr 1fr;gap:14px}
.ss-control label{display:block;font-weight:600;font-size:14px;margin-bottom:4px}
.ss-control input,.ss-control textarea{width:100%;box-sizing:border-box;padding:10px;border:1px solid #8c9bb0;border-radius:4px}
.ss-cta{background:#0071c2;color:#fff;border:0;border-radius:4px;padding:11px 20px;font-weight:600;cursor:pointer}
table#ss-rooms{width:100%;border-collapse:collapse}#ss-rooms th{background:#4c76b2;color:#fff;text-align:left;padding:8px}
#ss-rooms td{padding:10px 8px;border-bottom:1px solid #d6dde6;vertical-align:top}
.ss-soldout{color:#c00;font-weight:600}.ss-pref{background:#e7f4e4;color:#008009;font-size:12px;padding:2px 6px;border-radius:3px}
.ss-error{color:#c00;font-size:13px}.ss-errors{background:#fff0f0;border:1px solid #f3b3b3;padding:8px 14px;border-radius:4px}
.ss-banner{background:#ebf3ff;border:1px solid #a3c4f3;padding:10px 14px;border-radius:4px;margin-bottom:14px}
.ss-summary-list{list-style:none;padding:0}.ss-summary-list li{padding:4px 0;border-bottom:1px dashed #d6dde6}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} – StaySearch`,
  head: CSS,
  body: html`<div class="ss-masthead"><a href="/">StaySearch.com</a></div><div class="ss-page" id="ss-page">${body}</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as HotelSearch;

function rating(h: HotelSearch): SafeHtml {
  const { stars, neighbourhood } = venueFacts(h.hotelName, h.city);
  return html`<p id="ss-rating" data-stars="${stars}"><span aria-hidden="true">${'★'.repeat(stars)}</span> ${stars}-star hotel · ${neighbourhood}</p>`;
}

function control2(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="ss-control">${html`<label for="${id}">${label}</label>`}${input}${fieldError(form, name, id, 'ss-error')}</div>`;
}

function stayLine(s: SearchRecord): SafeHtml {
  const h = q(s);
  const nights = daysBetween(h.checkIn, h.checkOut);
  return html`<p id="ss-stay-line">${h.hotelName}, ${h.city} · ${longDate(h.checkIn)} – ${longDate(h.checkOut)} · ${nights} night${nights === 1 ? '' : 's'} · ${h.adults} adult${h.adults === 1 ? '' : 's'}</p>`;
}

function banner(hold: HoldInfo): SafeHtml {
  return hold.expired
    ? html`<div class="ss-banner" id="ss-hold-banner"${holdAttrs(hold)} role="alert"><strong>Your reservation hold expired.</strong> Room prices and availability may have changed. <a href="/">Search again</a></div>`
    : html`<div class="ss-banner" id="ss-hold-banner"${holdAttrs(hold)}>We're holding your room for <strong data-hold-remaining>${mmss(hold.secondsLeft)}</strong> — complete your booking before ${utcClock(hold.expiresAt)}.</div>`;
}

function summaryList(b: Booking): SafeHtml {
  const h = q(b.search);
  const g = b.guest;
  return html`<ul class="ss-summary-list" id="ss-summary-list">
<li>Hotel: <b>${h.hotelName}</b>, ${h.city}</li>
<li>Check-in: ${longDate(h.checkIn)} (from 15:00)</li>
<li>Check-out: ${longDate(h.checkOut)} (until 11:00)</li>
<li>Room: ${b.option.title} — ${b.option.description}</li>
<li>Guests: ${h.adults} adult${h.adults === 1 ? '' : 's'}</li>
${g ? html`<li>Guest name: ${g.givenName} ${g.familyName}</li><li>Email: ${g.email}</li><li>Phone: ${g.tel}</li><li>Requests: ${g.specialRequests || 'None'}</li>` : ''}
<li>Total price: <b>${money(b.option.total, 'USD')}</b> (${b.option.quantity} × ${money(b.option.unitPrice, 'USD')})${b.search.behaviour === 'walk-in' ? ' — pay at the property' : ''}</li>
</ul>`;
}

export const staysearch: ProviderDef = {
  id: 'staysearch',
  scenario: 'hotel',
  name: 'StaySearch',
  firstChoice: true,
  cookieName: 'ss_sess',
  selectField: 'room',
  cardCodeField: 'card_cvc',
  cardOnFile: 'Mastercard •••• 5454',
  currency: 'USD',
  paths: {
    home: '/',
    search: '/search',
    results: '/hotels/results/:sid',
    select: '/hotels/results/:sid/reserve',
    signIn: '/signin',
    verify: '/verify',
    details: '/book/:bid/guest-info',
    review: '/book/:bid/summary',
    payment: '/book/:bid/pay',
    confirmation: '/book/:bid/confirmation',
  },
  confirmationCode: () => `SS-${randomCode(10, '0123456789')}`,
  views: {
    home: (form) => layout('Find your stay', html`<div class="ss-box"><h1 id="ss-heading">Find deals on hotels</h1>
${errorSummary(form, 'ss-errors', 'There is a problem with your search:')}
<form id="ss-search" method="post" action="/search" novalidate><div class="ss-grid">
${control2(form, 'ss-hotel', 'hotel_name', 'Hotel name', control(form, { id: 'ss-hotel', name: 'hotel_name', required: true }))}
${control2(form, 'ss-city', 'city', 'City', control(form, { id: 'ss-city', name: 'city', autocomplete: 'address-level2', required: true }))}
${control2(form, 'ss-checkin', 'check_in', 'Check-in date', control(form, { id: 'ss-checkin', name: 'check_in', type: 'date', required: true }))}
${control2(form, 'ss-checkout', 'check_out', 'Check-out date', control(form, { id: 'ss-checkout', name: 'check_out', type: 'date', required: true }))}
${control2(form, 'ss-adults', 'adults', 'Adults', control(form, { id: 'ss-adults', name: 'adults', type: 'number', min: 1, max: 8, required: true }))}
${control2(form, 'ss-room-pref', 'room_preference', 'Room preference (optional)', control(form, { id: 'ss-room-pref', name: 'room_preference', placeholder: 'e.g. king bed' }))}
</div><p><button class="ss-cta" type="submit" id="ss-search-submit">Search</button></p></form></div>`),

    results: (s, error) => layout('Availability', html`<div class="ss-box" id="ss-availability"><h1>Availability</h1>${stayLine(s)}
${rating(q(s))}
${error ? html`<p class="ss-error" role="alert" id="ss-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(staysearch.paths.select, { sid: s.id })}" id="ss-rooms-form">
<table id="ss-rooms"><thead><tr><th>Room type</th><th>Price for ${s.options[0]?.quantity ?? 1} night(s)</th><th></th></tr></thead><tbody>
${s.options.map((o) => html`<tr class="ss-room" data-room-type="${o.id}" data-available="${o.available ? 'true' : 'false'}">
<td><strong class="ss-room-name">${o.title}</strong><br><small>${o.description}</small>${o.matchesPreference ? html` <span class="ss-pref">Matches your preference</span>` : ''}</td>
<td>${money(o.total, 'USD')}<br><small>${money(o.unitPrice, 'USD')} per night</small></td>
<td>${o.available ? html`<button class="ss-cta" type="submit" name="room" value="${o.id}">Reserve</button>` : html`<span class="ss-soldout">Sold out</span>`}</td></tr>`)}
</tbody></table></form></div>`),

    noAvailability: (s) => layout('Availability', html`<div class="ss-box" id="ss-availability"><h1>Availability</h1>${stayLine(s)}
<div id="ss-no-rooms" data-testid="no-availability" role="status"><h2>No rooms available</h2><p>This property has no availability for your dates on StaySearch.</p></div>
<p><a href="/">Change dates</a></p></div>`),

    details: (b, form) => layout('Enter your details', html`<div class="ss-box"><h1>Enter your details</h1>${stayLine(b.search)}
<p>Selected room: <strong id="ss-selected-room">${b.option.title}</strong></p>
${errorSummary(form, 'ss-errors', 'Please fix the following:')}
<form id="ss-guest" method="post" action="${fillPath(staysearch.paths.details, { bid: b.id })}" novalidate><div class="ss-grid">
${control2(form, 'ss-first-name', 'given_name', 'First name', control(form, { id: 'ss-first-name', name: 'given_name', autocomplete: 'given-name', required: true }))}
${control2(form, 'ss-last-name', 'family_name', 'Last name', control(form, { id: 'ss-last-name', name: 'family_name', autocomplete: 'family-name', required: true }))}
${control2(form, 'ss-email', 'email', 'Email address', control(form, { id: 'ss-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${control2(form, 'ss-phone', 'tel', 'Phone number', control(form, { id: 'ss-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
</div>
${control2(form, 'ss-requests', 'special_requests', 'Special requests', textarea(form, { id: 'ss-requests', name: 'special_requests', rows: 3 }))}
<p><button class="ss-cta" type="submit" id="ss-guest-next">Next step</button></p></form></div>`),

    review: (b, hold) => layout('Booking summary', html`<div class="ss-box" id="ss-summary"><h1>Review your booking</h1>${banner(hold)}${summaryList(b)}
${hold.expired ? '' : html`<form method="post" action="${fillPath(staysearch.paths.review, { bid: b.id })}" id="ss-summary-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="ss-pay-at-property">No payment needed now — you'll pay at the property.</p><button class="ss-cta" type="submit" id="ss-confirm-booking">Confirm booking</button>`
    : html`<button class="ss-cta" type="submit" id="ss-summary-continue">Continue to payment</button>`}</form>`}</div>`),

    payment: (b, hold, error) => layout(hold.expired ? 'Hold expired' : 'Payment', html`<div class="ss-box" id="ss-payment"><h1>Payment</h1>${banner(hold)}
${hold.expired ? html`<p id="ss-payment-unavailable">You can no longer pay for this reservation.</p>` : html`
<p>Amount due today: <strong id="ss-amount">${money(b.option.total, 'USD')}</strong></p>
<form id="ss-pay-form" method="post" action="${fillPath(staysearch.paths.payment, { bid: b.id })}" novalidate>
<div class="ss-control"><span>Card</span> <span id="ss-card-on-file" data-testid="card-on-file">${staysearch.cardOnFile}</span> <small>(exp. 11/28)</small></div>
${error ? html`<p class="ss-errors" role="alert" id="ss-payment-error">${error}</p>` : ''}
<div class="ss-control" style="max-width:220px;margin-top:12px"><label for="ss-card-cvc">Security code (CVC)</label><input id="ss-card-cvc" name="card_cvc" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required></div>
<p><button class="ss-cta" type="submit" id="ss-complete-booking">Complete booking</button></p></form>`}</div>`),

    confirmation: (b) => layout('Booking Confirmed', html`<div class="ss-box" id="ss-confirmation"><h1>Thanks, ${b.guest?.givenName}! Your booking is confirmed.</h1>
<p>Confirmation number: <b id="ss-confirmation-number" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</b></p>
${summaryList(b)}</div>`),

    signIn: (s, error) => signInWall(staysearch, layout, s, error),
    captcha: (s, error) => captchaWall(staysearch, layout, s, error),
    broken: (s) => brokenPage(staysearch, s),
    alternatives: (s) => alternativesPage(staysearch, layout, s),
    error: (status, title, message, retryHref) => layout(title, html`<div class="ss-box" id="ss-error" data-status="${status}"><h1>${title}</h1><p>${message}</p>
${retryHref ? html`<p><a class="ss-cta" href="${retryHref}" id="ss-error-retry">Try again</a></p>` : ''}</div>`),
  },
};
