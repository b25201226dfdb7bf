/** SkyFare — first-choice flight provider. Sky blue, ordered list of flights with radio buttons, USD. */
import { brokenPage, CABIN_OPTIONS, captchaWall, control, COUNTRY_OPTIONS, errorSummary, fieldError, holdAttrs, HOLD_SCRIPT, mmss, selectControl, signInWall, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { CABIN_LABELS, countryName, duration, longDate, money, passengerField } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FlightSearch, FormState, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font:15px Verdana,sans-serif;background:#e8f4fd;color:#0b2540}
.sf-bar{background:linear-gradient(90deg,#0a84ff,#4fc3f7);color:#fff;padding:14px 32px;font-size:22px;font-weight:bold}
.sf-bar a{color:#fff;text-decoration:none}
.sf-body{max-width:840px;margin:24px auto;background:#fff;padding:24px 30px;border-radius:6px}
.sf-f{margin:0 0 12px}.sf-f label{display:block;font-size:13px;margin-bottom:3px}.sf-f input,.sf-f select{padding:7px;border:1px solid #7fb3e0;border-radius:3px;min-width:200px}
.sf-cols{display:flex;flex-wrap:wrap;gap:0 20px}
.sf-go{background:#ff8c00;color:#fff;border:0;padding:11px 24px;font-weight:bold;border-radius:3px;cursor:pointer}
ol#sf-flights{padding:0;list-style:none}.sf-flight{border:1px solid #cfe3f5;border-radius:6px;margin-bottom:10px;padding:12px 16px;display:flex;gap:16px;align-items:center}
.sf-flight[data-available=false]{background:#f3f3f3;color:#888}.sf-times{font-size:20px;font-weight:bold;min-width:170px}
.sf-bad{color:#d00;font-size:12px}.sf-oops{background:#ffecec;border:1px solid #f5b5b5;padding:8px 14px}
.sf-hold{background:#fffbe6;border:1px dashed #e0b400;padding:8px 14px;margin-bottom:14px}
fieldset.sf-pax{border:1px solid #cfe3f5;border-radius:6px;margin-bottom:14px}
table.sf-itin td{padding:4px 14px 4px 0}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} | SkyFare`,
  head: CSS,
  body: html`<div class="sf-bar"><a href="/">✈ SkyFare</a></div><div class="sf-body" id="sf-body">${body}</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as FlightSearch;

function f(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="sf-f"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'sf-bad')}</div>`;
}

function route(s: SearchRecord): SafeHtml {
  const r = q(s);
  return html`<p id="sf-route"><b>${r.origin} ${r.returnDate ? '⇄' : '→'} ${r.destination}</b> · ${longDate(r.date)}${r.returnDate ? ` · return ${longDate(r.returnDate)}` : ''} · ${r.passengers} passenger${r.passengers === 1 ? '' : 's'} · ${CABIN_LABELS[r.cabin || 'economy']}</p>`;
}

function hold(h: HoldInfo): SafeHtml {
  return h.expired
    ? html`<div class="sf-hold" id="sf-fare-hold"${holdAttrs(h)} role="alert">Your fare hold has expired. The price is no longer guaranteed — <a href="/">search again</a>.</div>`
    : html`<div class="sf-hold" id="sf-fare-hold"${holdAttrs(h)}>Fare held for <b data-hold-remaining>${mmss(h.secondsLeft)}</b> · until ${utcClock(h.expiresAt)}</div>`;
}

function itinerary(b: Booking): SafeHtml {
  const r = q(b.search);
  const o = b.option;
  const g = b.guest;
  return html`<table class="sf-itin" id="sf-itinerary"><tbody>
<tr><td>Flight</td><td>${o.flightNumber} · ${o.carrier}</td></tr>
<tr><td>Route</td><td>${r.origin} → ${r.destination}</td></tr>
<tr><td>Date</td><td>${longDate(r.date)}</td></tr>
<tr><td>Departs / arrives</td><td>${o.time} → ${o.arrival}${o.arrivesNextDay ? ' (+1)' : ''} (${duration(o.durationMinutes ?? 0)})</td></tr>
${o.returnLeg ? html`<tr><td>Return flight</td><td>${o.returnLeg.flightNumber} · ${o.carrier}</td></tr>
<tr><td>Return date</td><td>${longDate(r.returnDate)}</td></tr>
<tr><td>Return departs / arrives</td><td>${o.returnLeg.time} → ${o.returnLeg.arrival}${o.returnLeg.arrivesNextDay ? ' (+1)' : ''}</td></tr>` : ''}
<tr><td>Cabin</td><td>${CABIN_LABELS[o.cabin ?? 'economy']}</td></tr>
${g ? html`${g.passengers.map((p, i) => html`<tr><td>Passenger ${i + 1}</td><td>${p.givenName} ${p.familyName} · born ${p.birthDate} · passport ${p.passportNumber} (${countryName(p.passportCountry)})${p.knownTravelerNumber ? ` · KTN ${p.knownTravelerNumber}` : ''}</td></tr>`)}
<tr><td>Contact</td><td>${g.email} · ${g.tel}</td></tr>` : ''}
<tr><td>Total</td><td><b>${money(o.total, 'USD')}</b> (${o.quantity} × ${money(o.unitPrice, 'USD')})${b.search.behaviour === 'walk-in' ? ' — pay at the airport' : ''}</td></tr>
</tbody></table>`;
}

export const skyfare: ProviderDef = {
  id: 'skyfare',
  scenario: 'flight',
  name: 'SkyFare',
  firstChoice: true,
  cookieName: 'skyfare_session',
  selectField: 'fare',
  cardCodeField: 'card_security_code',
  cardOnFile: 'Visa •••• 4242',
  currency: 'USD',
  paths: {
    home: '/',
    search: '/flights/search',
    results: '/flights/select/:sid',
    select: '/flights/select/:sid',
    signIn: '/account/login',
    verify: '/security-check',
    details: '/trip/:bid/passengers',
    review: '/trip/:bid/review',
    payment: '/trip/:bid/payment',
    confirmation: '/trip/:bid/confirmation',
  },
  confirmationCode: () => randomCode(6),
  views: {
    home: (form) => layout('Cheap flights', html`<h1 id="sf-title">Search flights</h1>
${errorSummary(form, 'sf-oops', 'Please check your search:')}
<form id="sf-search" method="post" action="/flights/search" novalidate><div class="sf-cols">
${f(form, 'sf-from', 'origin', 'From', control(form, { id: 'sf-from', name: 'origin', required: true, placeholder: 'City or airport' }))}
${f(form, 'sf-to', 'destination', 'To', control(form, { id: 'sf-to', name: 'destination', required: true, placeholder: 'City or airport' }))}
${f(form, 'sf-date', 'date', 'Depart', control(form, { id: 'sf-date', name: 'date', type: 'date', required: true }))}
${f(form, 'sf-return', 'return_date', 'Return (optional, for a return fare)', control(form, { id: 'sf-return', name: 'return_date', type: 'date' }))}
${f(form, 'sf-pax', 'passengers', 'Passengers', control(form, { id: 'sf-pax', name: 'passengers', type: 'number', min: 1, max: 9, required: true }))}
${f(form, 'sf-airline', 'airline', 'Airline (optional)', control(form, { id: 'sf-airline', name: 'airline' }))}
${f(form, 'sf-dep-time', 'departure_time', 'Preferred departure time (optional)', control(form, { id: 'sf-dep-time', name: 'departure_time', type: 'time' }))}
${f(form, 'sf-cabin', 'cabin', 'Cabin (optional)', selectControl(form, { id: 'sf-cabin', name: 'cabin', options: CABIN_OPTIONS, placeholder: 'Any (Economy)' }))}
</div><button class="sf-go" type="submit" id="sf-search-flights">Search flights</button></form>`),

    results: (s, error) => layout('Select your flight', html`<h1>Select your departing flight</h1>${route(s)}
${error ? html`<p class="sf-oops" role="alert" id="sf-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(skyfare.paths.select, { sid: s.id })}" id="sf-flights-form">
<ol id="sf-flights">
${s.options.map((o) => html`<li class="sf-flight" data-flight-number="${o.flightNumber}" data-departure="${o.time}" data-available="${o.available ? 'true' : 'false'}">
<input type="radio" name="fare" id="fare-${o.id}" value="${o.id}"${o.available ? '' : html` disabled`}>
<label for="fare-${o.id}" class="sf-times">${o.time} – ${o.arrival}${o.arrivesNextDay ? html`<sup>+1</sup>` : ''}</label>
<span>${o.carrier}<br><small>${o.flightNumber} · ${duration(o.durationMinutes ?? 0)} · Nonstop</small>${o.returnLeg ? html`<br><small class="sf-return-leg">Return ${o.returnLeg.flightNumber} · ${o.returnLeg.time} – ${o.returnLeg.arrival}${o.returnLeg.arrivesNextDay ? html`<sup>+1</sup>` : ''}</small>` : ''}</span>
<span>${o.available ? html`<b>${money(o.unitPrice, 'USD')}</b><br><small>${o.returnLeg ? 'return, ' : ''}per person</small>` : html`<b>Sold out</b>`}</span></li>`)}
</ol><button class="sf-go" type="submit" id="sf-continue">Continue</button></form>`),

    noAvailability: (s) => layout('Select your flight', html`<h1>Select your departing flight</h1>${route(s)}
<div class="sf-oops" id="sf-no-flights" data-testid="no-availability" role="status">No flights found. There are no seats available on this route and date.</div><p><a href="/">Change search</a></p>`),

    details: (b, form) => layout('Passenger details', html`<h1>Who's flying?</h1><p>${b.option.flightNumber} · ${b.option.time} → ${b.option.arrival}</p>
${errorSummary(form, 'sf-oops', 'Please correct the passenger details:')}
<form id="sf-passengers-form" method="post" action="${fillPath(skyfare.paths.details, { bid: b.id })}" novalidate>
${Array.from({ length: q(b.search).passengers }, (_, i) => i + 1).map((n) => html`<fieldset class="sf-pax" id="sf-pax-${n}"><legend>Passenger ${n}${n === 1 ? ' (lead)' : ''}</legend><div class="sf-cols">
${f(form, `sf-p${n}-given`, passengerField(n, 'given_name'), 'First name (as on passport)', control(form, { id: `sf-p${n}-given`, name: passengerField(n, 'given_name'), autocomplete: `section-p${n} given-name`, required: true }))}
${f(form, `sf-p${n}-family`, passengerField(n, 'family_name'), 'Last name (as on passport)', control(form, { id: `sf-p${n}-family`, name: passengerField(n, 'family_name'), autocomplete: `section-p${n} family-name`, required: true }))}
${f(form, `sf-p${n}-dob`, passengerField(n, 'birth_date'), 'Date of birth', control(form, { id: `sf-p${n}-dob`, name: passengerField(n, 'birth_date'), type: 'date', autocomplete: `section-p${n} bday`, required: true }))}
${f(form, `sf-p${n}-passport`, passengerField(n, 'passport_number'), 'Passport number', control(form, { id: `sf-p${n}-passport`, name: passengerField(n, 'passport_number'), autocomplete: 'off', required: true }))}
${f(form, `sf-p${n}-country`, passengerField(n, 'passport_country'), 'Passport issuing country', selectControl(form, { id: `sf-p${n}-country`, name: passengerField(n, 'passport_country'), options: COUNTRY_OPTIONS, autocomplete: 'off', required: true, placeholder: 'Select country' }))}
${f(form, `sf-p${n}-ktn`, passengerField(n, 'known_traveler_number'), 'Known Traveler Number (optional)', control(form, { id: `sf-p${n}-ktn`, name: passengerField(n, 'known_traveler_number'), autocomplete: 'off' }))}
</div></fieldset>`)}
<fieldset class="sf-pax" id="sf-contact"><legend>Contact</legend><div class="sf-cols">
${f(form, 'sf-email', 'email', 'Email', control(form, { id: 'sf-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${f(form, 'sf-phone', 'tel', 'Phone', control(form, { id: 'sf-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
</div></fieldset>
<button class="sf-go" type="submit" id="sf-passengers-next">Continue to review</button></form>`),

    review: (b, h) => layout('Review your trip', html`<div id="sf-review"><h1>Review your trip</h1>${hold(h)}${itinerary(b)}
${h.expired ? '' : html`<form method="post" action="${fillPath(skyfare.paths.review, { bid: b.id })}" id="sf-review-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="sf-pay-at-airport">This fare is paid at the airport check-in desk.</p><button class="sf-go" type="submit" id="sf-confirm">Confirm booking</button>`
    : html`<button class="sf-go" type="submit" id="sf-to-payment">Continue to payment</button>`}</form>`}</div>`),

    payment: (b, h, error) => layout(h.expired ? 'Fare hold expired' : 'Payment', html`<div id="sf-payment"><h1>Payment</h1>${hold(h)}
${h.expired ? html`<p id="sf-payment-closed">Payment is unavailable because the fare hold expired.</p>` : html`
<p>Trip total <b id="sf-amount">${money(b.option.total, 'USD')}</b></p>
<form id="sf-payment-form" method="post" action="${fillPath(skyfare.paths.payment, { bid: b.id })}" novalidate>
<p>Card on file: <span id="sf-card-on-file" data-testid="card-on-file">${skyfare.cardOnFile}</span></p>
${error ? html`<p class="sf-oops" role="alert" id="sf-payment-error">${error}</p>` : ''}
<div class="sf-f"><label for="sf-csc">Security code</label><input id="sf-csc" name="card_security_code" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" size="6" required></div>
<button class="sf-go" type="submit" id="sf-purchase">Purchase</button></form>`}</div>`),

    confirmation: (b) => layout('Booking Confirmed', html`<div id="sf-confirmation"><h1>Your flight is booked</h1>
<p>Booking reference (PNR): <strong id="sf-pnr" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</strong></p>${itinerary(b)}
<p>E-tickets will be sent to ${b.guest?.email}.</p></div>`),

    signIn: (s, error) => signInWall(skyfare, layout, s, error),
    captcha: (s, error) => captchaWall(skyfare, layout, s, error),
    broken: (s) => brokenPage(skyfare, s),
    error: (status, title, message, retryHref) => layout(title, html`<div id="sf-error" data-status="${status}"><h1>${title}</h1><p>${message}</p>
${retryHref ? html`<p><a href="${retryHref}" id="sf-retry" class="sf-go">Try again</a></p>` : ''}</div>`),
  },
};
