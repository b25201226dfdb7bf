/** EventGo — second activity provider. Teal, ticket-type list with Choose buttons, bracketed field names, GBP. */
import { brokenPage, captchaWall, control, fieldError, holdAttrs, HOLD_SCRIPT, mmss, signInWall, textarea, utcClock, type Layout } from '../engine/common.ts';
import { document, html, type SafeHtml } from '../engine/html.ts';
import { fillPath, randomCode } from '../engine/http.ts';
import { money, shortDateUS } from '../engine/inventory.ts';
import type { HoldInfo, ProviderDef } from '../engine/provider.ts';
import type { ActivitySearch, Booking, FormState, SearchRecord } from '../engine/types.ts';

const CSS = html`<style>
body{margin:0;font-family:'Gill Sans',Calibri,sans-serif;background:#f0fbfa;color:#113}
.eg-top{background:#0f766e;color:#fff;padding:20px 10%;font-size:28px}.eg-top a{color:#fff;text-decoration:none}
.eg-col{max-width:640px;margin:24px auto;padding:0 16px}
.eg-block{background:#fff;border-top:4px solid #14b8a6;padding:18px 22px;margin-bottom:14px}
.eg-q{display:grid;grid-template-columns:200px 1fr;align-items:center;gap:8px;margin-bottom:10px}
.eg-q input,.eg-q textarea{padding:8px;border:1px solid #99d5cf}
.eg-btn{background:#0f766e;color:#fff;border:0;padding:10px 20px;border-radius:999px;cursor:pointer;font-size:15px}
ul#eg-ticket-types{list-style:none;padding:0}#eg-ticket-types li{display:flex;justify-content:space-between;align-items:center;padding:12px 0;border-bottom:1px solid #d5efec}
#eg-ticket-types li[data-available=false]{color:#999}.eg-no{color:#b91c1c;font-size:13px;grid-column:2}
.eg-clock{background:#ccfbf1;padding:8px 12px;border-radius:4px;margin-bottom:12px}
</style>`;

const layout: Layout = (title, body) => document({
  title: `${title} — EventGo`,
  lang: 'en-GB',
  head: CSS,
  body: html`<div class="eg-top"><a href="/">EventGo</a></div><div class="eg-col">${body}</div>${HOLD_SCRIPT}`,
});

const q = (s: SearchRecord) => s.query as ActivitySearch;

function ask(form: FormState, id: string, name: string, label: string, input: SafeHtml): SafeHtml {
  return html`<div class="eg-q"><label for="${id}">${label}</label>${input}${fieldError(form, name, id, 'eg-no')}</div>`;
}

function clock(h: HoldInfo): SafeHtml {
  return h.expired
    ? html`<div class="eg-clock" id="eg-clock"${holdAttrs(h)} role="alert">Your basket expired and the tickets were released. <a href="/">Search again</a></div>`
    : html`<div class="eg-clock" id="eg-clock"${holdAttrs(h)}>Basket held — <span data-hold-remaining>${mmss(h.secondsLeft)}</span> to complete your order (by ${utcClock(h.expiresAt)}).</div>`;
}

function basket(b: Booking): SafeHtml {
  const e = q(b.search);
  const g = b.guest;
  return html`<div class="eg-block" id="eg-basket"><h3>${e.eventName}</h3>
<p>${e.city} · ${shortDateUS(e.eventDate)} · starts ${b.option.startTime}</p>
<p>${b.option.quantity} × ${b.option.title} @ ${money(b.option.unitPrice, 'GBP')} = <b>${money(b.option.total, 'GBP')}</b></p>
${g ? html`<p>Attendee: ${g.givenName} ${g.familyName}<br>${g.email} · ${g.tel}${g.specialRequests ? html`<br>Note: ${g.specialRequests}` : ''}</p>` : ''}
${b.search.behaviour === 'walk-in' ? html`<p>Payment: on the door</p>` : ''}</div>`;
}

export const eventgo: ProviderDef = {
  id: 'eventgo',
  scenario: 'activity',
  name: 'EventGo',
  firstChoice: false,
  cookieName: 'eventgo_s',
  selectField: 'ticket_type',
  cardCodeField: 'payment[cvc]',
  cardOnFile: 'Visa •••• 4242',
  currency: 'GBP',
  paths: {
    home: '/',
    search: '/go',
    results: '/go/:sid',
    select: '/go/:sid/basket',
    signIn: '/me/login',
    verify: '/me/verify',
    details: '/cart/:bid/attendee',
    review: '/cart/:bid/summary',
    payment: '/cart/:bid/pay',
    confirmation: '/cart/:bid/thanks',
  },
  confirmationCode: () => `EG${randomCode(8)}`,
  views: {
    home: (form) => layout("What's on", html`<div class="eg-block"><h1 id="eg-headline">Discover events</h1>
${Object.keys(form.errors).length ? html`<p class="eg-no" role="alert" id="eg-search-problems">Please complete the missing details.</p>` : ''}
<form id="eg-search-form" method="post" action="/go">
${ask(form, 'eg-what', 'event_name', 'Event', control(form, { id: 'eg-what', name: 'event_name', required: true }))}
${ask(form, 'eg-where', 'city', 'City', control(form, { id: 'eg-where', name: 'city', autocomplete: 'address-level2', required: true }))}
${ask(form, 'eg-when', 'event_date', 'Date', control(form, { id: 'eg-when', name: 'event_date', type: 'date', required: true }))}
${ask(form, 'eg-tickets', 'tickets', 'Tickets', control(form, { id: 'eg-tickets', name: 'tickets', type: 'number', min: 1, max: 10, required: true }))}
${ask(form, 'eg-seat-type', 'seat_type', 'Seat type', control(form, { id: 'eg-seat-type', name: 'seat_type', placeholder: 'Any' }))}
<button class="eg-btn" id="eg-search" type="submit">Let's go</button></form></div>`),

    results: (s, error) => layout('Tickets', html`<div class="eg-block"><h1>${q(s).eventName}</h1><p id="eg-when-where">${q(s).city} · ${shortDateUS(q(s).eventDate)} · ${q(s).tickets} ticket(s)</p>
${error ? html`<p class="eg-no" role="alert" id="eg-select-error">${error}</p>` : ''}
<form method="post" action="${fillPath(eventgo.paths.select, { sid: s.id })}" id="eg-types-form"><ul id="eg-ticket-types">
${s.options.map((o) => html`<li data-ticket-type="${o.id}" data-available="${o.available ? 'true' : 'false'}"><span><b>${o.title}</b> — ${money(o.unitPrice, 'GBP')}<br><small>${o.description}</small></span>
${o.available ? html`<button class="eg-btn" type="submit" name="ticket_type" value="${o.id}">Choose</button>` : html`<em>Unavailable</em>`}</li>`)}
</ul></form></div>`),

    noAvailability: (s) => layout('Tickets', html`<div class="eg-block"><h1>${q(s).eventName}</h1>
<p id="eg-none" data-testid="no-availability" role="status">Nothing available — this event has no tickets left for ${shortDateUS(q(s).eventDate)}.</p><p><a href="/">Back</a></p></div>`),

    details: (b, form) => layout('Attendee', html`${basket(b)}<div class="eg-block"><h2>Attendee details</h2>
${Object.keys(form.errors).length ? html`<p class="eg-no" role="alert" id="eg-attendee-problems">Please complete the missing details.</p>` : ''}
<form id="eg-attendee" method="post" action="${fillPath(eventgo.paths.details, { bid: b.id })}">
${ask(form, 'eg-given', 'given_name', 'First name', control(form, { id: 'eg-given', name: 'given_name', autocomplete: 'given-name', required: true }))}
${ask(form, 'eg-family', 'family_name', 'Last name', control(form, { id: 'eg-family', name: 'family_name', autocomplete: 'family-name', required: true }))}
${ask(form, 'eg-mail', 'email', 'Email', control(form, { id: 'eg-mail', name: 'email', type: 'email', autocomplete: 'email', required: true }))}
${ask(form, 'eg-phone', 'tel', 'Phone', control(form, { id: 'eg-phone', name: 'tel', type: 'tel', autocomplete: 'tel', required: true }))}
${ask(form, 'eg-note', 'special_requests', 'Note for the organiser', textarea(form, { id: 'eg-note', name: 'special_requests', rows: 2 }))}
<button class="eg-btn" id="eg-attendee-next" type="submit">Review order</button></form></div>`),

    review: (b, h) => layout('Summary', html`<div id="eg-summary">${clock(h)}${basket(b)}
${h.expired ? '' : html`<form method="post" action="${fillPath(eventgo.paths.review, { bid: b.id })}" id="eg-summary-form">
${b.search.behaviour === 'walk-in'
    ? html`<p id="eg-pay-on-door">Pay on the door — no card needed.</p><button class="eg-btn" id="eg-confirm" type="submit">Confirm booking</button>`
    : html`<button class="eg-btn" id="eg-pay-step" type="submit">Go to payment</button>`}</form>`}</div>`),

    payment: (b, h, error) => layout(h.expired ? 'Basket expired' : 'Pay', html`<div id="eg-payment">${clock(h)}${basket(b)}
${h.expired ? html`<p id="eg-cannot-pay">Payment is closed for this basket.</p>` : html`<div class="eg-block">
<form id="eg-payment-form" method="post" action="${fillPath(eventgo.paths.payment, { bid: b.id })}">
<p>Your card: <span id="eg-card" data-testid="card-on-file">${eventgo.cardOnFile}</span></p>
${error ? html`<p class="eg-no" role="alert" id="eg-payment-error">${error}</p>` : ''}
<div class="eg-q"><label for="eg-cvc">Card security code (CVC)</label><input id="eg-cvc" name="payment[cvc]" type="text" inputmode="numeric" autocomplete="cc-csc" maxlength="4" required></div>
<button class="eg-btn" id="eg-pay-button" type="submit">Pay now</button></form></div>`}</div>`),

    confirmation: (b) => layout('Order Confirmed', html`<div class="eg-block" id="eg-thanks"><h1>Thank you — order confirmed</h1>
<p>Your order code: <strong id="eg-code" data-confirmation-code="${b.confirmation?.code}">${b.confirmation?.code}</strong></p></div>${basket(b)}`),

    signIn: (s, error) => signInWall(eventgo, layout, s, error),
    captcha: (s, error) => captchaWall(eventgo, layout, s, error),
    broken: (s) => brokenPage(eventgo, s),
    error: (status, title, message, retryHref) => layout(title, html`<div class="eg-block" id="eg-error" data-status="${status}"><h1>${title}</h1><p>${message}</p>
${retryHref ? html`<p><a href="${retryHref}" id="eg-retry">Try again</a></p>` : ''}</div>`),
  },
};
