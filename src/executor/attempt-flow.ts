import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { Driver, Held, Offer, PaymentPage } from '../driver/types.ts';
import type { AttemptDeps, AttemptOutcome, Decisions } from './attempt.ts';
import { choose, chooseVenue, type Choice } from './decide.ts';
import { checkHeld, venueAsked } from './held.ts';
import { nameWords, sameName } from '../driver/names.ts';
import { oneLine, ProviderFailure } from '../driver/failures.ts';
import { RunAborted, within, type AbortReason } from './failures.ts';
import { safeUrl } from '../security/text.ts';
import { describeRequest } from './request.ts';
import { GuardedPage } from './guard/page-api.ts';
import { CardStepReached } from './guard/page-errors.ts';

// One try at one provider, in the order a person books: find the offers, choose one within the
// consent, enter the guest details and check what the site holds, then review and reach the
// payment, where the guard's refusal at the card-code field is the pause.

type OfferChosen = Extract<Choice, { kind: 'offer' }>;

/** One try under way: its page, what it decided, and how it takes each step. */
interface Flow {
  deps: AttemptDeps;
  driver: Driver;
  page: Page;
  g: GuardedPage;
  decisions: Decisions;
  held?: Held;
  /** How the venue shown was read as the one asked for, when the names differ (quoted in the review step). */
  venueEvidence?: string;
  /** The site took a request, not a booking: its words (ReviewPage.requestSent). */
  requestSent?: string;
  payment?: PaymentPage;
  /** Starts a named step: checks the abort and the soft cap, records the step, waits the test delay. */
  step(name: string, message: string): Promise<void>;
  /** Every step is bounded as a whole, whatever inside it might wait on a tab that stopped answering. */
  bounded<T>(work: Promise<T>, what: string): Promise<T>;
}

export function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new RunAborted(signal.reason as AbortReason);
}

export function throwIfPastCap(deps: AttemptDeps): void {
  if (deps.pastCap?.()) throw new RunAborted('soft_cap');
}

export async function flow(deps: AttemptDeps, driver: Driver, page: Page, state: { step: string }): Promise<AttemptOutcome> {
  const { recorder } = deps;
  const run: Flow = {
    deps,
    driver,
    page,
    g: new GuardedPage(page, recorder, { timeoutMs: deps.timeoutMs, onAction: deps.onAction }),
    decisions: {},
    bounded: (work, what) => within(work, deps.timeoutMs * 2, `finish ${what}`),
    async step(name, message) {
      throwIfAborted(deps.signal);
      // The soft cap: the step under way has finished; none is started once the cap has passed.
      throwIfPastCap(deps);
      state.step = name;
      deps.progress.step = name;
      deps.progress.url = safeUrl(page.url());
      if (deps.stepDelayMs > 0) await sleep(deps.stepDelayMs, undefined, { signal: deps.signal }).catch(() => {});
      throwIfAborted(deps.signal);
      // Written in order behind the run's other events; the flow need not wait for the database.
      recorder.record({ type: 'step_started', providerId: driver.id, message, data: { step: name } }).catch(() => {});
    },
  };
  try {
    const offers = await offersFound(run);
    const choice = await chosen(run, offers);
    run.held = await heldAsAsked(run, choice);
    if (run.requestSent !== undefined) return { kind: 'completed', held: run.held, code: null, requestSent: run.requestSent, decisions: run.decisions };
    return await paidOrPaused(run, run.held);
  } catch (error) {
    if (error instanceof CardStepReached) {
      await run.g.focusCardField().catch(() => false);
      return { kind: 'paused', page, guarded: run.g, held: run.held, payment: run.payment, step: state.step, control: error.control, field: error.field, decisions: run.decisions };
    }
    throw error;
  }
}

/** The search, and the offers it found; a venue the site suggests for a missing one is opened only if the request and consent choose it. */
async function offersFound(run: Flow): Promise<Offer[]> {
  const { deps: { plan, recorder }, driver, g, bounded } = run;
  await run.step('search', `Searching ${driver.name} for ${describeRequest(plan.request)}.`);
  await bounded(driver.search(g, run.deps.startUrl, plan.request), 'the search');
  let availability = await bounded(driver.availability(g), 'reading the availability');
  if (availability.kind === 'venues') {
    const asked = venueAsked(plan.request);
    const pick = chooseVenue(plan, availability.venues);
    if (pick.kind === 'none' || !driver.chooseVenue) throw new ProviderFailure('no_availability', `${driver.name}: ${pick.why}`);
    const passedOver = availability.venues.filter((v) => v !== pick.offer).map((v) => v.label);
    run.decisions.switched = { from: asked, to: pick.offer.label };
    recorder.record({ type: 'venue_switched', providerId: driver.id, message: `Venue switched at ${driver.name} from ${asked} to ${pick.offer.label}: ${pick.why}.`, data: { fromVenue: asked, toVenue: pick.offer.label, passedOver } }).catch(() => {});
    await run.step('choose', `Opening ${pick.offer.label} at ${driver.name}, suggested for the missing ${asked}.`);
    await bounded(driver.chooseVenue(g, pick.offer), 'opening the venue');
    availability = await bounded(driver.availability(g), 'reading the availability');
  }
  switch (availability.kind) {
    case 'none':
      throw new ProviderFailure('no_availability', `${driver.name} has no availability (the site says: "${oneLine(availability.message, 160)}")`);
    case 'login_wall':
      throw new ProviderFailure('login_wall', `${driver.name} asks to sign in before booking ("${oneLine(availability.message, 120)}"); the service does not sign in on the person's behalf`);
    case 'captcha':
      throw new ProviderFailure('captcha', `${driver.name} shows a CAPTCHA ("${oneLine(availability.message, 120)}"); the service does not solve CAPTCHAs`);
    case 'unexpected':
      throw new ProviderFailure('unexpected_page', `${availability.message} (page title "${await g.title()}")`);
    case 'venues':
      throw new ProviderFailure('unexpected_page', `${driver.name} suggests other venues again after one was opened`);
    case 'offers':
      return availability.offers;
  }
}

/** The offer the request and consent choose (a time moved within the consent is recorded), chosen on the site. */
async function chosen(run: Flow, offers: Offer[]): Promise<OfferChosen> {
  const { deps: { plan, recorder }, driver } = run;
  const choice = choose(plan, offers);
  if (choice.kind === 'none') throw new ProviderFailure('no_availability', `nothing acceptable at ${driver.name}: ${choice.why}`);
  if (choice.adjusted) {
    run.decisions.adjusted = { from: choice.adjusted.from, to: choice.adjusted.to };
    recorder.record({
      type: 'time_adjusted',
      providerId: driver.id,
      message: `Time adjusted at ${driver.name} from ${choice.adjusted.from} to ${choice.adjusted.to}: ${choice.why}.`,
      data: { fromTime: choice.adjusted.from, toTime: choice.adjusted.to, minutes: choice.adjusted.minutes },
    }).catch(() => {});
  }
  await run.step('choose', `Choosing ${choice.offer.label}${choice.offer.time && choice.offer.time !== choice.offer.label ? ` (${choice.offer.time})` : ''} at ${driver.name}: ${choice.why}.`);
  await run.bounded(driver.choose(run.g, choice.offer), 'choosing');
  return choice;
}

/** The guest details entered, and what the site then holds, read back and checked against the request. */
async function heldAsAsked(run: Flow, choice: OfferChosen): Promise<Held> {
  const { deps: { plan, recorder }, driver, g, bounded, decisions } = run;
  await run.step('guest_details', `Entering the guest details (${plan.traveller.givenName} ${plan.traveller.familyName}) at ${driver.name}.`);
  await bounded(driver.guestDetails(g, plan.traveller, plan.request), 'the guest details');
  const review = await bounded(driver.review(g), 'reading the review');
  if (!review) {
    const errors = await bounded(driver.formErrors(g), 'reading the form errors');
    throw new ProviderFailure(errors.length ? 'error' : 'unexpected_page', errors.length
      ? `${driver.name} did not accept the guest details: ${errors.slice(0, 3).join('; ')}`
      : `${driver.name} did not show its review page after the guest details (page title "${await g.title()}")`);
  }
  const held = review.held;
  // A request the site answers later: what was asked is what the request says; the page may not repeat it.
  if (review.requestSent !== undefined) {
    run.requestSent = review.requestSent;
    return held;
  }
  // A careful agent reads back what the site holds before going on to pay for it.
  // After opening a venue the site suggested, that venue is what must be held.
  const opened = decisions.switched && plan.request.scenario !== 'flight' ? { ...plan.request, venue: decisions.switched.to } : plan.request;
  const check = checkHeld(opened, held, choice.offer.time);
  if (check.kind === 'as_asked' && opened.scenario !== 'flight' && held.venue.trim() !== '') {
    const match = sameName(opened.venue, held.venue, opened.city);
    if (match.same && nameWords(opened.venue).join(' ') !== nameWords(held.venue).join(' ')) run.venueEvidence = match.evidence;
  }
  if (check.kind === 'mismatch') throw new ProviderFailure('error', `${driver.name} holds something other than what was asked: ${check.message}`);
  if (check.kind === 'venue_switch') {
    if (!plan.consent.allowVenueSwitch) {
      throw new ProviderFailure('no_availability', `${driver.name} offers only ${check.to}, not ${check.from}, and the consent does not allow switching venues (consent.allowVenueSwitch is false)`);
    }
    decisions.switched = { from: check.from, to: check.to };
    recorder.record({
      type: 'venue_switched',
      providerId: driver.id,
      message: `Venue switched at ${driver.name} from ${check.from} to ${check.to}: the site offers only ${check.to}, and the consent allows switching venues.`,
      data: { fromVenue: check.from, toVenue: check.to },
    }).catch(() => {});
  }
  return held;
}

/** The review confirmed, then the payment page: paused at its card-code field (or before a Pay that would charge without one), or booked by a site that asks for no payment. */
async function paidOrPaused(run: Flow, held: Held): Promise<AttemptOutcome> {
  const { deps: { recorder }, driver, page, g, bounded, decisions } = run;
  await run.step('review', `Reviewing what ${driver.name} holds: ${held.venue}, ${held.when}, ${held.quantity}${held.item ? `, ${held.item}` : ''}, ${held.price}${run.venueEvidence ? ` (the venue asked for: ${run.venueEvidence})` : ''}.`);
  await bounded(driver.confirmReview(g), 'the review');
  const code = await bounded(driver.confirmation(g), 'reading the confirmation');
  if (code) return { kind: 'completed', held, code, decisions };

  const pay = await bounded(driver.payment(g), 'reading the payment page');
  if (!pay) throw new ProviderFailure('unexpected_page', `${driver.name} did not show its payment page after the review (page title "${await g.title()}")`);
  run.payment = pay;
  await run.step('payment', `Reached ${driver.name}'s payment page: ${pay.price ?? held.price}, card on file ${pay.cardOnFile ?? 'not shown'}.`);
  // An order placed without a card (bank transfer, invoice) is as binding as a charge: the person
  // places it on the handoff page, after reading what it commits them to.
  if (pay.bindingOrder) {
    recorder.record({
      type: 'action_denied',
      providerId: driver.id,
      message: `Not pressing '${pay.bindingOrder}' at ${driver.name}: it places an order the person must then pay, with no card step. Stopping here for the person to place it.`,
      data: { reason: 'binding_order' },
    }).catch(() => {});
    return { kind: 'paused', page, guarded: g, held, payment: pay, step: 'payment', control: pay.bindingOrder, field: null, decisions };
  }
  // Pay is pressed only to meet the guard's refusal at the card-code field: that refusal is the
  // pause. A payment page that asks for no code would charge the card on file at that press, and
  // an irreversible charge is the person's to approve (the contract's invariant): stop before it.
  if (!(await bounded(g.asksForCardCode(pay.cardField, 'Pay'), 'look for the card security code field'))) {
    recorder.record({
      type: 'action_denied',
      providerId: driver.id,
      message: `Not pressing Pay at ${driver.name}: its payment page asks for no card security code, so pressing it would charge the card on file (${pay.cardOnFile ?? 'not shown'}) at once. Stopping here for the person to approve the charge.`,
      data: { reason: 'charge_without_card_code' },
    }).catch(() => {});
    return { kind: 'paused', page, guarded: g, held, payment: pay, step: 'payment', control: 'Pay', field: null, decisions };
  }
  await bounded(driver.pay(g), 'the payment');
  // The guard let Pay through although the driver saw the code field (the guard did not read it as
  // one): the field went empty, and only a site that books without the code confirms.
  const paidCode = await bounded(driver.confirmation(g), 'reading the confirmation');
  if (paidCode) return { kind: 'completed', held, code: paidCode, decisions };
  throw new ProviderFailure('unexpected_page', `${driver.name}'s payment step did not lead to a confirmation (page title "${await g.title()}")`);
}
