/** JetDeck — second flight provider. Dark theme, results table with per-row Select buttons, EUR, Amex card on file. */
import { brokenPage, CABIN_OPTIONS, captchaWall, control, COUNTRY_OPTIONS, fieldError, holdAttrs, HOLD_SCRIPT, mmss, selectControl, signInWall, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { CABIN_LABELS, countryName, duration, money, passengerField, shortDateUS } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { Booking, FlightSearch, FormState, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;background:#101418;color:#e6edf3;font-family:'Segoe UI',Tahoma,sans-serif}
a{color:#58a6ff}.jd-head{padding:16px 28px;border-bottom:1px solid #30363d;display:flex;align-items:baseline;gap:12px}
.jd-head a{color:#f0f6fc;font-size:24px;font-weight:600;text-decoration:none}.jd-head small{color:#8b949e}
.jd-wrap{max-width:960px;margin:0 auto;padding:24px 28px}
.jd-grid{display:grid;grid-template-columns:repeat(3,1fr);gap:12px 18px}
.jd-fld label{display:block;color:#8b949e;font-size:12px;text-transform:uppercase;margin-bottom:4px}
.jd-fld input,.jd-fld select{width:100%;box-sizing:border-box;background:#0d1117;color:#e6edf3;border:1px solid #30363d;border-radius:6px;padding:8px}
.jd-btn{background:#238636;color:#fff;border:1px solid #2ea043;border-radius:6px;padding:9px 18px;font-weight:600;cursor:pointer}
table#jd-results{width:100%;border-collapse:collapse}#jd-results th,#jd-results td{padding:10px;border-bottom:1px solid #30363d;text-align:left}
#jd-results tr[data-status=full]{color:#6e7681}.jd-warn{color:#f85149;font-size:13px}
.jd-clock{border:1px solid #9e6a03;background:#272115;border-radius:6px;padding:10px 14px;margin-bottom:16px}
section.jd-traveller{border:1px solid #30363d;border-radius:8px;padding:14px;margin-bottom:14px}
.jd-recap dt{color:#8b949e;font-size:12px;text-transform:uppercase}.jd-recap dd{margin:0 0 8px}
</style>`;

const layout: Layout = (title, body) => document({
  title: `JetDeck · ${title}`,
  head: CSS,
  body: html`<header class="jd-head"><a href="/">JetDeck</a><small>flights without the fuss</small></header><main class="jd-wrap">${body}</main>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as FlightSearch;

function fld(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="jd-fld"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'jd-warn')}</div>`;
}

function problems(form: FormState): SafeHtml {
  return Object.keys(form.errors).length ? html`<p class="jd-warn" role="alert" id="jd-problems">${Object.keys(form.errors).length} field(s) need your attention.</p>` : html``;
}

function clock(h: HoldInfo): SafeHtml {
  return h.expired
    ? html`<div class="jd-clock" id="jd-clock"${holdAttrs(h)} role="alert">Seat hold expired at ${utcClock(h.expiresAt)}. <a href="/">Start over</a></div>`
    : html`<div class="jd-clock" id="jd-clock"${holdAttrs(h)}>Seats on hold · <span data-hold-remaining>${mmss(h.secondsLeft)}</span> remaining (expires ${utcClock(h.expiresAt)})</div>`;
}

function recap(b: Booking): SafeHtml {
  const r = q(b.search);
  const o = b.option;
  const g = b.guest;
  return html`<dl class="jd-recap" id="jd-recap">
<dt>Flight</dt><dd>${o.carrier} ${o.flightNumber}</dd>
<dt>Route</dt><dd>${r.origin} – ${r.destination}, ${shortDateUS(r.date)}</dd>
<dt>Schedule</dt><dd>dep ${o.time}, arr ${o.arrival}${o.arrivesNextDay ? ' next day' : ''} · ${duration(o.durationMinutes ?? 0)}</dd>
${o.returnLeg ? html`<dt>Return</dt><dd>${o.carrier} ${o.returnLeg.flightNumber}, ${r.destination} – ${r.origin}, ${shortDateUS(r.returnDate)}, dep ${o.returnLeg.time}, arr ${o.returnLeg.arrival}${o.returnLeg.arrivesNextDay ? ' next day' : ''}</dd>` : ''}
<dt>Class</dt><dd>${CABIN_LABELS[o.cabin ?? 'economy']}</dd>
${g ? html`<dt>Travellers</dt><dd><ol>${g.passengers.map((p) => html`<li>${p.familyName.toUpperCase()}/${p.givenName} — DOB ${p.birthDate}, passport ${p.passportNumber} ${p.passportCountry} (${countryName(p.passportCountry)})${p.knownTravelerNumber ? `, KTN ${p.knownTravelerNumber}` : ''}</li>`)}</ol></dd>
<dt>Contact</dt><dd>${g.email}, ${g.tel}</dd>` : ''}
<dt>Price</dt><dd>${money(o.total, 'EUR')}${b.search.behaviour === 'walk-in' ? ' · payable at the airport' : ''}</dd>
</dl>`;
}

export const jetdeck: ProviderDef = {
  id: 'jetdeck',
  scenario: 'flight',
  name: 'JetDeck',
  firstChoice: false,
  cookieName: 'jd',
  selectField: 'flight',
  cardCodeField: 'cid',
  cardOnFile: 'American Express ending 1005',
  currency: 'EUR',
  paths: {
    home: '/',
    search: '/search',
    results: '/results/:sid',
    select: '/results/:sid/choose',
    signIn: '/login',
    verify: '/robot-check',
    details: '/booking/:bid/travellers',
    review: '/booking/:bid/confirm-details',
    payment: '/booking/:bid/checkout',
    confirmation: '/booking/:bid/itinerary',
  },
  confirmationCode: () => `JD-${randomCode(6)}`,
  views: {
    home: (form) => layout('Find flights', html`<h1 id="jd-title">Where to next?</h1>${problems(form)}
<form id="jd-search" method="post" action="/search"><div class="jd-grid">
${fld(form, 'jd-origin', 'origin', 'Origin', control(form, { id: 'jd-origin', name: 'origin', required: true }))}
${fld(form, 'jd-destination', 'destination', 'Destination', control(form, { id: 'jd-destination', name: 'destination', required: true }))}
${fld(form, 'jd-date', 'date', 'Date', control(form, { id: 'jd-date', name: 'date', type: 'date', required: true }))}
${fld(form, 'jd-return', 'return_date', 'Return date (leave empty for one way)', control(form, { id: 'jd-return', name: 'return_date', type: 'date' }))}
${fld(form, 'jd-travellers', 'passengers', 'Travellers', control(form, { id: 'jd-travellers', name: 'passengers', type: 'number', min: 1, max: 9, required: true }))}
${fld(form, 'jd-carrier', 'airline', 'Preferred airline', control(form, { id: 'jd-carrier', name: 'airline', placeholder: 'Any' }))}
${fld(form, 'jd-time', 'departure_time', 'Leave around', control(form, { id: 'jd-time', name: 'departure_time', type: 'time' }))}
${fld(form, 'jd-class', 'cabin', 'Class', selectControl(form, { id: 'jd-class', name: 'cabin', options: CABIN_OPTIONS, placeholder: 'Economy' }))}
</div><p><button class="jd-btn" id="jd-go" type="submit">Find flights</button></p></form>`),

    results: (s, error) => layout('Results', html`<h1>${q(s).origin} → ${q(s).destination}</h1><p id="jd-query">${shortDateUS(q(s).date)}${q(s).returnDate ? ` – return ${shortDateUS(q(s).returnDate)}` : ''} · ${q(s).passengers} traveller(s)</p>
${error ? html`<p class="jd-warn" role="alert" id="jd-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(jetdeck.paths.select, { sid: s.id })}" id="jd-results-form">
<table id="jd-results"><thead><tr><th>Departs</th><th>Arrives</th><th>Flight</th><th>Duration</th><th>Fare</th><th></th></tr></thead><tbody>
${s.options.map((o) => html`<tr data-flight="${o.flightNumber}" data-dep="${o.time}" data-status="${o.available ? 'available' : 'full'}">
<td>${o.time}</td><td>${o.arrival}${o.arrivesNextDay ? ' +1' : ''}</td><td>${o.carrier} ${o.flightNumber}${o.returnLeg ? html`<br><small class="jd-return-leg">return ${o.returnLeg.flightNumber} ${o.returnLeg.time}–${o.returnLeg.arrival}</small>` : ''}</td><td>${duration(o.durationMinutes ?? 0)}</td>
<td>${money(o.total, 'EUR')}</td><td>${o.available ? html`<button class="jd-btn" type="submit" name="flight" value="${o.id}">Select</button>` : html`<span class="jd-warn">Full</span>`}</td></tr>`)}
</tbody></table></form>`),

    noAvailability: (s) => layout('Results', html`<h1>${q(s).origin} → ${q(s).destination}</h1>
<div id="jd-empty" data-testid="no-availability" role="status"><p>No seats available — every flight on ${shortDateUS(q(s).date)} is sold out.</p></div><p><a href="/">New search</a></p>`),

    details: (b, form) => layout('Travellers', html`<h1>Traveller information</h1><p>${b.option.carrier} ${b.option.flightNumber}, ${b.option.time}</p>${problems(form)}
<form id="jd-travellers-form" method="post" action="${fillPath(jetdeck.paths.details, { bid: b.id })}">
${Array.from({ length: q(b.search).passengers }, (_, i) => i + 1).map((n) => html`<section class="jd-traveller" data-index="${n}" id="jd-traveller-${n}"><h2>Traveller ${n}</h2><div class="jd-grid">
${fld(form, `jd-t${n}-first`, passengerField(n, 'given_name'), 'Given names', control(form, { id: `jd-t${n}-first`, name: passengerField(n, 'given_name'), autocomplete: `section-t${n} given-name`, required: true }))}
${fld(form, `jd-t${n}-last`, passengerField(n, 'family_name'), 'Surname', control(form, { id: `jd-t${n}-last`, name: passengerField(n, 'family_name'), autocomplete: `section-t${n} family-name`, required: true }))}
${fld(form, `jd-t${n}-birth`, passengerField(n, 'birth_date'), 'Date of birth', control(form, { id: `jd-t${n}-birth`, name: passengerField(n, 'birth_date'), type: 'date', autocomplete: `section-t${n} bday`, required: true }))}
${fld(form, `jd-t${n}-doc`, passengerField(n, 'passport_number'), 'Passport no.', control(form, { id: `jd-t${n}-doc`, name: passengerField(n, 'passport_number'), autocomplete: 'off', required: true }))}
${fld(form, `jd-t${n}-nat`, passengerField(n, 'passport_country'), 'Country of issue', selectControl(form, { id: `jd-t${n}-nat`, name: passengerField(n, 'passport_country'), options: COUNTRY_OPTIONS, required: true, placeholder: '—' }))}
${fld(form, `jd-t${n}-ktn`, passengerField(n, 'known_traveler_number'), 'Known traveler number', control(form, { id: `jd-t${n}-ktn`, name: passengerField(n, 'known_traveler_number'), autocomplete: 'off', placeholder: 'Optional' }))}
</div></section>`)}
<section class="jd-traveller" id="jd-contact"><h2>Contact details</h2><div class="jd-grid">
${fld(form, 'jd-contact-email', 'email', 'Email', control(form, { id: 'jd-contact-email', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${fld(form, 'jd-contact-phone', 'tel', 'Mobile', control(form, { id: 'jd-contact-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
</div></section>
<button class="jd-btn" id="jd-save-travellers" type="submit">Save travellers</button></form>`),

    review: (b, h) => layout('Confirm details', html`<div id="jd-review"><h1>Confirm details</h1>${clock(h)}${recap(b)}
${h.expired ? '' : html`<form method="post" action="${fillPath(jetdeck.paths.review, { bid: b.id })}" id="jd-review-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="jd-airport-payment">No online payment: settle the fare at the airport ticket desk.</p><button class="jd-btn" id="jd-book" type="submit">Confirm booking</button>`
    : html`<button class="jd-btn" id="jd-proceed" type="submit">Proceed to checkout</button>`}</form>`}</div>`),

    payment: (b, h, error) => layout(h.expired ? 'Hold expired' : 'Checkout', html`<div id="jd-payment"><h1>Checkout</h1>${clock(h)}
${h.expired ? html`<p id="jd-checkout-closed">Checkout is closed: the seat hold expired.</p>` : html`
<form id="jd-checkout" method="post" action="${fillPath(jetdeck.paths.payment, { bid: b.id })}">
<p>Charge <b id="jd-amount">${money(b.option.total, 'EUR')}</b> to <span id="jd-card-on-file" data-testid="card-on-file">${jetdeck.cardOnFile}</span></p>
${error ? html`<p class="jd-warn" role="alert" id="jd-payment-error">${error}</p>` : ''}
<div class="jd-fld" style="max-width:200px"><label for="jd-cid">CID (4 digits on the front)</label><input id="jd-cid" name="cid" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required></div>
<p><button class="jd-btn" id="jd-pay" type="submit">Pay and book</button></p></form>`}</div>`),

    confirmation: (b) => layout('Booking Confirmed', html`<div id="jd-itinerary"><h1>Confirmed — have a great trip</h1>
<p>Confirmation <span id="jd-confirmation" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</span></p>${recap(b)}</div>`),

    signIn: (s, error) => signInWall(jetdeck, layout, s, error),
    captcha: (s, error) => captchaWall(jetdeck, layout, s, error),
    broken: (s) => brokenPage(jetdeck, s),
    error: (status, title, message, retryHref) => layout(title, html`<div id="jd-error" data-status="${status}"><h1>${status} · ${title}</h1><p>${message}</p>
${retryHref ? html`<p><a href="${retryHref}" id="jd-retry">Try again</a></p>` : ''}</div>`),
  },
};
