/**
 * The booking state machine shared by every provider. Provider modules only
 * supply URL templates and views; everything that decides what happens
 * (behaviours, holds, validation, confirmation) lives here.
 */
import { VENUE_FIELD, dateOf, detectBehaviour, generateOptions, parseGuest, parseSearch, readSearchForm, sisterVenue, venueOf, guestFormValues } from './inventory.ts';
import { fillPath, htmlRes, matchPath, redirect, sessionCookie, shortId, token, type Req, type Res } from './http.ts';
import type { HoldInfo, ProviderDef } from './provider.ts';
import type { SandboxState } from './state.ts';
import type { Booking, SearchRecord, Session } from './types.ts';

const CARD_CODE_RE = /^\d{3,4}$/;

function holdInfo(b: Booking, now: number): HoldInfo {
  const secondsLeft = Math.max(0, Math.ceil((b.holdExpiresAt - now) / 1000));
  return { expiresAt: new Date(b.holdExpiresAt), secondsLeft, expired: now >= b.holdExpiresAt };
}

function getSession(p: ProviderDef, req: Req, state: SandboxState): { session: Session; setCookie: string | null } {
  const sid = req.cookies[p.cookieName];
  const key = (s: string) => `${p.id}:${s}`;
  if (sid) {
    const existing = state.sessions.get(key(sid));
    if (existing) return { session: existing, setCookie: null };
  }
  const id = token();
  const session: Session = { id, searches: new Map(), bookings: new Map(), outage: false };
  state.sessions.set(key(id), session);
  return { session, setCookie: sessionCookie(p.cookieName, id) };
}

export function handleProvider(p: ProviderDef, req: Req, state: SandboxState): Res {
  const { session, setCookie } = getSession(p, req, state);
  const res = route(p, req, state, session);
  if (setCookie) {
    const existing = res.headers['set-cookie'];
    res.headers['set-cookie'] = existing ? [...(Array.isArray(existing) ? existing : [existing]), setCookie] : setCookie;
  }
  return res;
}

function outagePage(p: ProviderDef): Res {
  return htmlRes(503, p.views.error(503, 'Service temporarily unavailable', `${p.name} is experiencing a service outage. Our engineers are working on it — please try again later.`), { 'retry-after': '120' });
}

function notFound(p: ProviderDef, message = 'The page you were looking for does not exist or has expired.'): Res {
  return htmlRes(404, p.views.error(404, 'Page not found', message, p.paths.home));
}

function route(p: ProviderDef, req: Req, state: SandboxState, session: Session): Res {
  const now = Date.now();
  if (session.outage && p.firstChoice) return outagePage(p);
  const { paths, views } = p;
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  let m: Record<string, string> | null;

  // --- search form --------------------------------------------------------
  if (method === 'GET' && matchPath(paths.home, req.path)) {
    const values = readSearchForm(p.scenario, req.query);
    const venue = values[VENUE_FIELD[p.scenario]] ?? '';
    if (p.firstChoice && detectBehaviour(venue) === 'outage') {
      session.outage = true;
      return outagePage(p);
    }
    return htmlRes(200, views.home({ values, errors: {} }));
  }
  if (method === 'POST' && matchPath(paths.search, req.path)) {
    const values = readSearchForm(p.scenario, req.form);
    const { query, state: form } = parseSearch(p.scenario, values);
    if (!query) return htmlRes(422, views.home(form));
    const behaviour = detectBehaviour(venueOf(query));
    if (behaviour === 'outage' && p.firstChoice) {
      session.outage = true;
      return outagePage(p);
    }
    if (behaviour === 'flaky') {
      const key = `${p.id}|${venueOf(query).trim().toLowerCase()}|${dateOf(query)}`;
      const seen = state.flaky.get(key);
      if (seen) seen.retriedAt ??= Date.now();
      else {
        state.flaky.set(key, { provider: p.id, venue: venueOf(query), failedAt: Date.now(), retriedAt: null });
        const retry = `${paths.home}?${new URLSearchParams(values).toString()}`;
        return htmlRes(502, views.error(502, 'Something went wrong', 'Something went wrong, please try again.', retry));
      }
    }
    // Sister: everything from here on (options, review, confirmation) is the sister venue's.
    const offered = behaviour === 'sister' ? sisterVenue(query) : query;
    const record: SearchRecord = {
      id: shortId(),
      query: offered,
      behaviour,
      options: generateOptions(offered, behaviour),
      createdAt: now,
    };
    session.searches.set(record.id, record);
    return redirect(fillPath(paths.results, { sid: record.id }));
  }

  // --- availability -------------------------------------------------------
  if ((m = matchPath(paths.results, req.path)) && method === 'GET') {
    const s = session.searches.get(m.sid ?? '');
    if (!s) return notFound(p, 'This search has expired. Please search again.');
    switch (s.behaviour) {
      case 'members': return htmlRes(200, views.signIn(s));
      case 'captcha': return htmlRes(200, views.captcha(s));
      case 'broken': return htmlRes(200, views.broken(s));
      default:
        // Missing: the venue is not here; a site that suggests others shows them (flights and events have none).
        if (s.behaviour === 'missing' && views.alternatives) return htmlRes(200, views.alternatives(s));
        if (!s.options.some((o) => o.available)) return htmlRes(200, views.noAvailability(s));
        return htmlRes(200, views.results(s));
    }
  }
  if ((m = matchPath(paths.select, req.path)) && method === 'POST') {
    const s = session.searches.get(m.sid ?? '');
    if (!s) return notFound(p, 'This search has expired. Please search again.');
    if (s.behaviour === 'members' || s.behaviour === 'captcha' || s.behaviour === 'broken') return redirect(fillPath(paths.results, { sid: s.id }));
    const chosen = req.form.get(p.selectField) ?? '';
    const option = s.options.find((o) => o.id === chosen);
    if (!option) return htmlRes(422, s.options.some((o) => o.available) ? views.results(s, 'Please choose one of the available options.') : views.noAvailability(s));
    if (!option.available) return htmlRes(409, views.results(s, 'Sorry, that option is no longer available. Please choose another.'));
    const booking: Booking = {
      id: shortId(),
      search: s,
      option,
      guest: null,
      holdExpiresAt: now + state.holdSeconds * 1000,
      reviewed: false,
      confirmation: null,
    };
    session.bookings.set(booking.id, booking);
    return redirect(fillPath(paths.details, { bid: booking.id }));
  }
  if (matchPath(paths.signIn, req.path) && method === 'POST') {
    const s = session.searches.get(req.form.get('return_to') ?? '');
    if (!s) return notFound(p, 'This search has expired. Please search again.');
    return htmlRes(401, views.signIn(s, 'Incorrect email or password.'));
  }
  if (matchPath(paths.verify, req.path) && method === 'POST') {
    const s = session.searches.get(req.form.get('return_to') ?? '');
    if (!s) return notFound(p, 'This search has expired. Please search again.');
    return htmlRes(403, views.captcha(s, 'Verification failed. Please try again.'));
  }

  // --- booking steps ------------------------------------------------------
  const bookingRoute = (tpl: string): Booking | null | undefined => {
    const mm = matchPath(tpl, req.path);
    if (!mm) return undefined;
    return session.bookings.get(mm.bid ?? '') ?? null;
  };
  const to = (tpl: string, b: Booking) => redirect(fillPath(tpl, { bid: b.id }));
  let b: Booking | null | undefined;

  if ((b = bookingRoute(paths.details)) !== undefined) {
    if (!b) return notFound(p, 'This booking could not be found.');
    if (b.confirmation) return to(paths.confirmation, b);
    if (method === 'GET') return htmlRes(200, views.details(b, { values: guestFormValues(b.search.query, b.guest), errors: {} }));
    if (method === 'POST') {
      const { guest, state: form } = parseGuest(b.search.query, req.form, new Date(now).toISOString().slice(0, 10));
      if (!guest) return htmlRes(422, views.details(b, form));
      b.guest = guest;
      return to(paths.review, b);
    }
  }
  if ((b = bookingRoute(paths.review)) !== undefined) {
    if (!b) return notFound(p, 'This booking could not be found.');
    if (b.confirmation) return to(paths.confirmation, b);
    if (!b.guest) return to(paths.details, b);
    const hold = holdInfo(b, now);
    if (method === 'GET') return htmlRes(200, views.review(b, hold));
    if (method === 'POST') {
      if (hold.expired) return htmlRes(410, views.review(b, hold));
      b.reviewed = true;
      if (b.search.behaviour === 'walk-in') return confirm(p, state, b, false);
      return to(paths.payment, b);
    }
  }
  if ((b = bookingRoute(paths.payment)) !== undefined) {
    if (!b) return notFound(p, 'This booking could not be found.');
    if (b.confirmation) return to(paths.confirmation, b);
    if (!b.guest) return to(paths.details, b);
    if (!b.reviewed || b.search.behaviour === 'walk-in') return to(paths.review, b);
    const hold = holdInfo(b, now);
    if (method === 'GET') return htmlRes(200, views.payment(b, hold));
    if (method === 'POST') {
      if (hold.expired) return htmlRes(410, views.payment(b, hold));
      const code = (req.form.get(p.cardCodeField) ?? '').trim();
      if (code === '') return htmlRes(422, views.payment(b, hold, 'Enter the security code of your card.'));
      if (!CARD_CODE_RE.test(code)) return htmlRes(422, views.payment(b, hold, 'The security code must be 3 or 4 digits.'));
      return confirm(p, state, b, true);
    }
  }
  if ((b = bookingRoute(paths.confirmation)) !== undefined) {
    if (!b) return notFound(p, 'This booking could not be found.');
    if (!b.confirmation) return to(b.reviewed ? paths.payment : paths.review, b);
    if (method === 'GET') return htmlRes(200, views.confirmation(b));
  }
  return notFound(p);
}

/** Slow Pay: the card is charged at once, and the answer to the Pay POST comes this much later. */
export const SLOW_PAY_DELAY_MS = 3_000;
const SLOW_PAY = /\bslow[\s_-]*pay\b/i;

function confirm(p: ProviderDef, state: SandboxState, b: Booking, paidWithCard: boolean): Res {
  const code = p.confirmationCode();
  b.confirmation = { code, paidWithCard, at: new Date() };
  state.confirmations.push({ provider: p.id, code, paidWithCard });
  const res = redirect(fillPath(p.paths.confirmation, { bid: b.id }));
  return paidWithCard && SLOW_PAY.test(venueOf(b.search.query)) ? { ...res, delayMs: SLOW_PAY_DELAY_MS, ...(state.slowPayHeld ? { heldUntil: state.slowPayHeld } : {}) } : res;
}
