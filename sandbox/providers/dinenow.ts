/** DineNow — second restaurant provider. Green, sidebar layout, radio list with 12-hour times, GBP. */
import { alternativesPage, brokenPage, captchaWall, control, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { money, shortDateUS, time12, venueFacts } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FormState, RestaurantSearch, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
*{box-sizing:border-box}body{margin:0;font-family:Helvetica,Arial,sans-serif;color:#16321f;background:#eef5ef}
#dn-header{background:#1e6b3a;padding:10px 5%;display:flex;gap:24px;align-items:center}
#dn-header .brand{color:#fff;font-size:22px;font-weight:800;letter-spacing:-.5px;text-decoration:none}
#dn-header nav a{color:#cfe8d6;margin-right:14px;font-size:14px}
.dn-wrap{display:flex;gap:24px;max-width:980px;margin:28px auto;padding:0 16px}
.dn-content{flex:2;background:#fff;padding:22px;border-radius:4px}
.dn-aside{flex:1;background:#f8fbf8;border:1px solid #cfe0d3;padding:16px;border-radius:4px;height:fit-content}
.dn-content p.row{margin:0 0 14px}.dn-content label{display:block;font-size:13px;text-transform:uppercase;letter-spacing:.5px;color:#4a6b55;margin-bottom:3px}
.dn-content input[type=text],.dn-content input[type=email],.dn-content input[type=tel],.dn-content input[type=date],.dn-content input[type=time],.dn-content input[type=number],.dn-content textarea{width:100%;padding:9px;border:1px solid #a9c4b0}
ul.dn-times{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:8px}
li.dn-time label{display:inline-block;border:1px solid #1e6b3a;padding:8px 14px;border-radius:20px;text-transform:none;font-size:15px;color:#1e6b3a}
li.dn-time.is-full label{color:#aaa;border-color:#ccc}
.dn-primary{background:#f2b705;color:#16321f;border:0;padding:12px 22px;font-weight:700;border-radius:3px;cursor:pointer}
.dn-alert{background:#fff3cd;padding:10px;border:1px solid #e0c46c}.dn-invalid{color:#c0392b;font-size:13px}
table.dn-table{border-collapse:collapse;width:100%}table.dn-table th{text-align:left;width:40%;color:#4a6b55;font-weight:normal}table.dn-table td,table.dn-table th{padding:6px;border-bottom:1px solid #e3ece5}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} | DineNow`,
  lang: 'en-GB',
  head: CSS,
  body: html`<div id="dn-header"><a class="brand" href="/">dine<span style="color:#f2b705">now</span></a><nav><a href="/">Restaurants</a><a href="/">Offers</a><a href="/">Gift cards</a></nav></div>
${body}
<div style="text-align:center;font-size:12px;color:#6b8a74;padding:20px">DineNow Ltd · All times are local to the restaurant</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as RestaurantSearch;

function facts(r: RestaurantSearch): SafeHtml {
  const { cuisine, neighbourhood } = venueFacts(r.restaurantName, r.city);
  return html`<p id="dn-venue-facts">${cuisine} cuisine in ${neighbourhood}</p>`;
}

function aside(s: SearchRecord, b?: Booking): SafeHtml {
  const r = q(s);
  return html`<aside class="dn-aside" id="dn-booking-summary"><h3>Your booking</h3>
<p><b>${r.restaurantName}</b><br>${r.city}</p>
<p>${shortDateUS(r.date)}<br>${b ? time12(b.option.time ?? r.time) : `around ${time12(r.time)}`}<br>Table for ${r.partySize}</p></aside>`;
}

function row(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<p class="row"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'dn-invalid')}</p>`;
}

function timer(hold: HoldInfo): SafeHtml {
  return hold.expired
    ? html`<div class="dn-alert" id="dn-timer"${holdAttrs(hold)} role="alert">Time's up — the hold on this table has expired. <a href="/">Search again</a></div>`
    : html`<div class="dn-alert" id="dn-timer"${holdAttrs(hold)}>Table held for <b data-hold-remaining>${mmss(hold.secondsLeft)}</b> minutes (until ${utcClock(hold.expiresAt)}).</div>`;
}

function table(b: Booking): SafeHtml {
  const r = q(b.search);
  const g = b.guest;
  return html`<table class="dn-table" id="dn-check-table"><tbody>
<tr><th>Restaurant</th><td>${r.restaurantName}, ${r.city}</td></tr>
<tr><th>When</th><td>${shortDateUS(r.date)} at ${time12(b.option.time ?? r.time)}</td></tr>
<tr><th>Guests</th><td>${r.partySize}</td></tr>
<tr><th>Area</th><td>${b.option.description}</td></tr>
${g ? html`<tr><th>Lead guest</th><td>${g.givenName} ${g.familyName}</td></tr><tr><th>Contact</th><td>${g.email} / ${g.tel}</td></tr><tr><th>Notes</th><td>${g.specialRequests || 'None'}</td></tr>` : ''}
<tr><th>Card guarantee</th><td>${b.search.behaviour === 'walk-in' ? 'Not required — pay at the venue' : `${money(b.option.total, 'GBP')} (refundable)`}</td></tr>
</tbody></table>`;
}

export const dinenow: ProviderDef = {
  id: 'dinenow',
  scenario: 'restaurant',
  name: 'DineNow',
  firstChoice: false,
  cookieName: 'dinenow.sid',
  selectField: 'time_slot',
  cardCodeField: 'security_code',
  cardOnFile: 'VISA ending in 4242',
  currency: 'GBP',
  paths: {
    home: '/',
    search: '/find',
    results: '/find/:sid',
    select: '/find/:sid/hold',
    signIn: '/login',
    verify: '/human-check',
    details: '/booking/:bid/your-details',
    review: '/booking/:bid/check',
    payment: '/booking/:bid/secure-payment',
    confirmation: '/booking/:bid/done',
  },
  confirmationCode: () => `DN-${randomCode(8, '0123456789')}`,
  views: {
    home: (form) => layout('Book a restaurant', html`<div class="dn-wrap"><div class="dn-content">
<h2 id="dn-title">Where would you like to eat?</h2>
${Object.keys(form.errors).length ? html`<div class="dn-alert" role="alert" id="dn-form-problems">Please check the highlighted fields.</div>` : ''}
<form id="dn-find" method="post" action="/find">
${row(form, 'restaurantName', 'restaurant_name', 'Restaurant name', control(form, { id: 'restaurantName', name: 'restaurant_name', required: true }))}
${row(form, 'cityName', 'city', 'Town or city', control(form, { id: 'cityName', name: 'city', autocomplete: 'address-level2', required: true }))}
${row(form, 'bookingDate', 'date', 'Date', control(form, { id: 'bookingDate', name: 'date', type: 'date', required: true }))}
${row(form, 'bookingTime', 'time', 'Preferred time', control(form, { id: 'bookingTime', name: 'time', type: 'time', required: true }))}
${row(form, 'covers', 'party_size', 'Number of people', control(form, { id: 'covers', name: 'party_size', type: 'number', min: 1, max: 20, required: true }))}
<button class="dn-primary" id="dn-search-btn" type="submit">Search availability</button>
</form></div><aside class="dn-aside"><h3>Why DineNow?</h3><p>Instant confirmation at 4,000+ restaurants.</p></aside></div>`),

    results: (s, error) => layout('Choose a time', html`<div class="dn-wrap"><div class="dn-content">
<h2>Choose a time</h2>${facts(q(s))}
${error ? html`<div class="dn-alert" role="alert" id="dn-select-error">${error}</div>` : ''}
<form method="post" action="${fillPath(dinenow.paths.select, { sid: s.id })}" id="dn-times-form">
<ul class="dn-times" id="dn-times">
${s.options.map((o) => html`<li class="dn-time${o.available ? '' : ' is-full'}"><input type="radio" name="time_slot" id="ts-${o.id}" value="${o.id}" data-time="${o.time}"${o.available ? '' : html` disabled`}> <label for="ts-${o.id}">${time12(o.time ?? '')}${o.available ? '' : ' (unavailable)'}</label></li>`)}
</ul>
<button class="dn-primary" type="submit" id="dn-continue">Continue</button>
</form></div>${aside(s)}</div>`),

    noAvailability: (s) => layout('Choose a time', html`<div class="dn-wrap"><div class="dn-content">
<h2>Choose a time</h2><div class="dn-alert" id="dn-empty" data-testid="no-availability" role="status">Sorry — ${q(s).restaurantName} is fully booked on ${shortDateUS(q(s).date)}. No tables are available.</div>
<p><a href="/">Try a different date</a></p></div>${aside(s)}</div>`),

    details: (b, form) => layout('Your details', html`<div class="dn-wrap"><div class="dn-content">
<h2>Your details</h2>
${Object.keys(form.errors).length ? html`<div class="dn-alert" role="alert" id="dn-form-problems">Please check the highlighted fields.</div>` : ''}
<form id="dn-details" method="post" action="${fillPath(dinenow.paths.details, { bid: b.id })}">
${row(form, 'dn-first', 'given_name', 'First name', control(form, { id: 'dn-first', name: 'given_name', autocomplete: 'given-name', required: true }))}
${row(form, 'dn-last', 'family_name', 'Surname', control(form, { id: 'dn-last', name: 'family_name', autocomplete: 'family-name', required: true }))}
${row(form, 'dn-email', 'email', 'Email address', control(form, { id: 'dn-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${row(form, 'dn-phone', 'tel', 'Phone', control(form, { id: 'dn-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
${row(form, 'dn-notes', 'special_requests', 'Occasion or dietary notes', textarea(form, { id: 'dn-notes', name: 'special_requests', rows: 2 }))}
<button class="dn-primary" type="submit" id="dn-details-next">Next: review</button>
</form></div>${aside(b.search, b)}</div>`),

    review: (b, hold) => layout('Check your booking', html`<div class="dn-wrap"><div class="dn-content" id="dn-check">
<h2>Check your booking</h2>${timer(hold)}${table(b)}
${hold.expired ? '' : html`<form method="post" action="${fillPath(dinenow.paths.review, { bid: b.id })}" id="dn-check-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="dn-walk-in-note">This restaurant doesn't take card details — just pay on the night.</p><button class="dn-primary" type="submit" id="dn-confirm">Confirm booking</button>`
    : html`<button class="dn-primary" type="submit" id="dn-to-payment">Proceed to secure payment</button>`}</form>`}
<p><a href="${fillPath(dinenow.paths.details, { bid: b.id })}">Change details</a></p></div>${aside(b.search, b)}</div>`),

    payment: (b, hold, error) => layout(hold.expired ? 'Booking hold expired' : 'Secure payment', html`<div class="dn-wrap"><div class="dn-content" id="dn-payment">
<h2>Secure payment</h2>${timer(hold)}
${hold.expired ? html`<p id="dn-payment-closed">This booking can no longer be paid for.</p>` : html`
<p>We'll pre-authorise <b id="dn-amount">${money(b.option.total, 'GBP')}</b> to guarantee your table.</p>
<form id="dn-pay-form" method="post" action="${fillPath(dinenow.paths.payment, { bid: b.id })}">
<p class="row">Paying with <span id="dn-saved-card" data-testid="card-on-file">${dinenow.cardOnFile}</span></p>
${error ? html`<div class="dn-alert" role="alert" id="dn-pay-error">${error}</div>` : ''}
<p class="row"><label for="dn-security-code">Security code</label><input type="password" id="dn-security-code" name="security_code" autocomplete="cc-csc" inputmode="numeric" maxlength="4" size="6" required><br><small>The 3 digits on the back of your card</small></p>
<button class="dn-primary" type="submit" id="dn-pay-now">Pay now</button>
</form>`}</div>${aside(b.search, b)}</div>`),

    confirmation: (b) => layout('Booking Confirmed', html`<div class="dn-wrap"><div class="dn-content" id="dn-done">
<h2>Booking confirmed</h2>
<p>Your booking reference is <span id="dn-ref" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</span>.</p>
${table(b)}<p>We've emailed ${b.guest?.email} with the details.</p></div>${aside(b.search, b)}</div>`),

    signIn: (s, error) => signInWall(dinenow, layout, s, error),
    captcha: (s, error) => captchaWall(dinenow, layout, s, error),
    broken: (s) => brokenPage(dinenow, s),
    alternatives: (s) => alternativesPage(dinenow, layout, s),
    error: (status, title, message, retryHref) => layout(title, html`<div class="dn-wrap"><div class="dn-content" id="dn-error" data-status="${status}">
<h2>${title}</h2><p>${message}</p>${retryHref ? html`<p><a href="${retryHref}" id="dn-retry">Please try again</a></p>` : ''}</div></div>`),
  },
};
