/**
 * Building blocks shared by provider views: form controls with correct
 * label/autocomplete wiring, the hold countdown, and the "wall" pages (login
 * wall, CAPTCHA, broken page) rendered inside each provider's own layout.
 */
import { fillPath } from './http.ts';
import { attr, html, raw, type SafeHtml } from './html.ts';
import { ALTERNATIVES, COUNTRIES, CABIN_LABELS } from './inventory.ts';
import type { HoldInfo, ProviderDef } from './provider.ts';
import type { FormState, SearchRecord } from './types.ts';

export interface ControlOpts {
  id: string;
  name: string;
  type?: string;
  autocomplete?: string;
  required?: boolean;
  placeholder?: string;
  inputmode?: string;
  min?: string | number;
  max?: string | number;
  maxlength?: number;
  pattern?: string;
  className?: string;
  /** Extra raw attributes, e.g. data-testid. */
  extra?: SafeHtml;
}

/** An <input> showing the form value, with aria-invalid/aria-describedby wired to `${id}-error`. */
export function control(form: FormState, o: ControlOpts): SafeHtml {
  const error = form.errors[o.name];
  return html`<input${attr('id', o.id)}${attr('name', o.name)} type="${o.type ?? 'text'}"${attr('value', form.values[o.name] ?? '')}${attr('autocomplete', o.autocomplete)}${attr('required', o.required ?? false)}${attr('placeholder', o.placeholder)}${attr('inputmode', o.inputmode)}${attr('min', o.min)}${attr('max', o.max)}${attr('maxlength', o.maxlength)}${attr('pattern', o.pattern)}${attr('class', o.className)}${attr('aria-invalid', error ? 'true' : undefined)}${attr('aria-describedby', error ? `${o.id}-error` : undefined)}${o.extra ?? ''}>`;
}

export function textarea(form: FormState, o: { id: string; name: string; rows?: number; className?: string; placeholder?: string }): SafeHtml {
  return html`<textarea id="${o.id}" name="${o.name}" rows="${o.rows ?? 3}"${attr('class', o.className)}${attr('placeholder', o.placeholder)}>${form.values[o.name] ?? ''}</textarea>`;
}

export function selectControl(form: FormState, o: { id: string; name: string; options: ReadonlyArray<[string, string]>; autocomplete?: string; required?: boolean; className?: string; placeholder?: string }): SafeHtml {
  const current = form.values[o.name] ?? '';
  const error = form.errors[o.name];
  return html`<select id="${o.id}" name="${o.name}"${attr('autocomplete', o.autocomplete)}${attr('required', o.required ?? false)}${attr('class', o.className)}${attr('aria-invalid', error ? 'true' : undefined)}${attr('aria-describedby', error ? `${o.id}-error` : undefined)}>${o.placeholder !== undefined ? html`<option value="">${o.placeholder}</option>` : ''}${o.options.map(([v, l]) => html`<option value="${v}"${attr('selected', v === current)}>${l}</option>`)}</select>`;
}

/** Error text for a field, id `${id}-error`, or nothing. */
export function fieldError(form: FormState, name: string, id: string, className = 'field-error'): SafeHtml {
  const e = form.errors[name];
  return e ? html`<span id="${id}-error" class="${className}" role="alert">${e}</span>` : raw('');
}

export function errorSummary(form: FormState, className: string, heading = 'Please correct the following:'): SafeHtml {
  const errors = Object.values(form.errors);
  if (!errors.length) return raw('');
  return html`<div class="${className}" role="alert" data-testid="form-errors"><p>${heading}</p><ul>${errors.map((e) => html`<li>${e}</li>`)}</ul></div>`;
}

export const COUNTRY_OPTIONS = COUNTRIES;
export const CABIN_OPTIONS: ReadonlyArray<[string, string]> = Object.entries(CABIN_LABELS);

export function utcClock(d: Date): string {
  return `${d.toISOString().slice(11, 19)} UTC`;
}

export function mmss(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** Live countdown for any element with data-hold-expires-at containing [data-hold-remaining]. */
export const HOLD_SCRIPT = raw(`<script>
document.querySelectorAll('[data-hold-expires-at]').forEach(function (el) {
  var end = Date.parse(el.getAttribute('data-hold-expires-at'));
  var out = el.querySelector('[data-hold-remaining]');
  if (!out) return;
  (function tick() {
    var s = Math.max(0, Math.round((end - Date.now()) / 1000));
    out.textContent = Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
    if (s > 0) setTimeout(tick, 1000);
  })();
});
</script>`);

/** Attributes every hold element carries: data-hold-expires-at (ISO) and data-hold-expired. */
export function holdAttrs(hold: HoldInfo): SafeHtml {
  return html` data-hold-expires-at="${hold.expiresAt.toISOString()}" data-hold-expired="${hold.expired ? 'true' : 'false'}"`;
}

export type Layout = (title: string, body: SafeHtml, opts?: { bodyClass?: string }) => string;

/** "Sign in to continue" wall (Members). Shared hook: data-testid="login-wall". */
export function signInWall(p: ProviderDef, layout: Layout, s: SearchRecord, error?: string): string {
  const form: FormState = { values: {}, errors: {} };
  return layout('Sign in to continue', html`
<section class="wall wall--login" data-testid="login-wall" id="${p.id}-login-wall">
  <h1>Sign in to continue</h1>
  <p>This venue only accepts bookings from signed-in ${p.name} members.</p>
  ${error ? html`<p class="wall__error" role="alert" data-testid="login-error">${error}</p>` : ''}
  <form method="post" action="${p.paths.signIn}" id="${p.id}-login-form">
    <input type="hidden" name="return_to" value="${s.id}">
    <p><label for="${p.id}-login-email">Email address</label><br>${control(form, { id: `${p.id}-login-email`, name: 'email', type: 'email', autocomplete: 'username', required: true })}</p>
    <p><label for="${p.id}-login-password">Password</label><br>${control(form, { id: `${p.id}-login-password`, name: 'password', type: 'password', autocomplete: 'current-password', required: true })}</p>
    <p><button type="submit" id="${p.id}-login-submit">Sign in</button></p>
  </form>
  <p><a href="${p.paths.home}">Back to search</a></p>
</section>`);
}

function tile(i: number): SafeHtml {
  const hue = (i * 47) % 360;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="90" height="90"><rect width="90" height="90" fill="hsl(${hue},35%,55%)"/><circle cx="${20 + ((i * 13) % 50)}" cy="${25 + ((i * 29) % 40)}" r="${10 + (i % 4) * 5}" fill="hsl(${(hue + 120) % 360},40%,35%)"/><path d="M0 ${60 + (i % 3) * 8} L90 ${45 + (i % 5) * 6} L90 90 L0 90Z" fill="hsl(${(hue + 200) % 360},30%,30%)"/></svg>`;
  return raw(`data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`);
}

/** "Verify you are human" image puzzle (Captcha). It can never be solved. Shared hook: data-testid="captcha". */
export function captchaWall(p: ProviderDef, layout: Layout, s: SearchRecord, error?: string): string {
  return layout('Verify you are human', html`
<section class="wall wall--captcha" data-testid="captcha" id="${p.id}-captcha">
  <h1>Verify you are human</h1>
  <p>We noticed unusual activity. Select all images with <strong>a bicycle</strong>, then press Verify.</p>
  ${error ? html`<p class="wall__error" role="alert" data-testid="captcha-error">${error}</p>` : ''}
  <form method="post" action="${p.paths.verify}" id="${p.id}-captcha-form">
    <input type="hidden" name="return_to" value="${s.id}">
    <fieldset style="display:grid;grid-template-columns:repeat(3,92px);gap:4px;border:0;padding:0">
      <legend>Puzzle</legend>
      ${[1, 2, 3, 4, 5, 6, 7, 8, 9].map((i) => html`<label for="${p.id}-tile-${i}" style="position:relative"><img src="${tile(i + s.id.length)}" alt="" width="90" height="90"><input type="checkbox" id="${p.id}-tile-${i}" name="tiles" value="${i}" aria-label="Tile ${i}" style="position:absolute;left:4px;top:4px"></label>`)}
    </fieldset>
    <p><button type="submit" id="${p.id}-captcha-verify">Verify</button></p>
  </form>
</section>`);
}

/** A page that failed to render (Broken): no recognisable structure, no options. */
export function brokenPage(p: ProviderDef, s: SearchRecord): string {
  return `<!doctype html>
<html><head><meta charset="utf-8"><title>${p.name}</title></head>
<body><div id="__root" data-v="${s.id.length}"><div class="x1a9"><div class="x1a9 x2b"><span class="q7">undefined</span></div>
<div class="x3c" style="display:flex"><div class="x4"><div class="x4">[object Object]</div><div class="x4">NaN</div></div>
<div class="x5"><div class="x6" role="presentation">&nbsp;</div><div class="x6">&nbsp;</div></div></div>
<noscript>Please enable JavaScript to continue.</noscript>
<div class="x9" aria-hidden="true">TypeError: Cannot read properties of undefined (reading 'slots')</div></div></div></body></html>`;
}

export function searchAgainHref(p: ProviderDef, s: SearchRecord): string {
  return `${fillPath(p.paths.home, {})}?${new URLSearchParams(searchValues(s.query)).toString()}`;
}

/** A search's form values, as its search form names them. */
export function searchValues(q: SearchRecord['query']): Record<string, string> {
  const values: Record<string, string> = {};
  switch (q.scenario) {
    case 'restaurant': Object.assign(values, { restaurant_name: q.restaurantName, city: q.city, date: q.date, time: q.time, party_size: String(q.partySize) }); break;
    case 'hotel': Object.assign(values, { hotel_name: q.hotelName, city: q.city, check_in: q.checkIn, check_out: q.checkOut, adults: String(q.adults), room_preference: q.roomPreference }); break;
    case 'flight': Object.assign(values, { origin: q.origin, destination: q.destination, date: q.date, passengers: String(q.passengers), airline: q.airline, departure_time: q.departureTime, cabin: q.cabin, return_date: q.returnDate }); break;
    case 'activity': Object.assign(values, { event_name: q.eventName, city: q.city, event_date: q.eventDate, tickets: String(q.tickets), seat_type: q.seatType }); break;
  }
  return values;
}

/** Missing: the venue asked for is not on the site; similar ones are suggested, each a search of its own. */
export function alternativesPage(p: ProviderDef, layout: Layout, s: SearchRecord): string {
  const q = s.query;
  if (q.scenario !== 'restaurant' && q.scenario !== 'hotel') return brokenPage(p, s);
  const asked = q.scenario === 'restaurant' ? q.restaurantName : q.hotelName;
  const field = q.scenario === 'restaurant' ? 'restaurant_name' : 'hotel_name';
  const values = searchValues(q);
  return layout('Similar places', html`<section id="alt-section"><h1>We couldn't find “${asked}” in ${q.city}</h1>
<p role="status">Similar ${q.scenario === 'restaurant' ? 'restaurants' : 'hotels'} nearby:</p>
<ul id="alt-venues">${ALTERNATIVES[q.scenario].map((a, i) => html`<li class="alt-venue" data-index="${i}" data-venue="${a.name}" data-neighbourhood="${a.neighbourhood}"${a.cuisine ? html` data-cuisine="${a.cuisine}"` : ''}${a.stars ? html` data-stars="${a.stars}"` : ''}>
<h2>${a.name}</h2><p>${a.stars ? `${a.stars}-star hotel` : `${a.cuisine} cuisine`} · ${a.neighbourhood}</p>
<form method="post" action="${p.paths.search}">${Object.entries({ ...values, [field]: a.name }).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`)}<button type="submit" class="alt-go">See availability at ${a.name}</button></form></li>`)}</ul>
<p><a href="${searchAgainHref(p, s)}">Change search</a></p></section>`);
}
