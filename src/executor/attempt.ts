import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import type { Driver, Held, PaymentPage } from '../providers/types.ts';
import { choose, chooseVenue } from './decide.ts';
import { checkHeld, venueAsked } from './held.ts';
import { asFailure, oneLine, ProviderFailure, RunAborted, within, type AbortReason, type FailureKind } from './failures.ts';
import { captureEvidence, safeUrl, type Evidence } from './evidence.ts';
import { GuardedPage } from './guard/page-api.ts';
import { CardStepReached } from './guard/page-errors.ts';
import type { JobRecorder } from './recorder.ts';
import { describeRequest, type BookingPlan } from './request.ts';

// One provider attempt: search, choose within consent, guest details, review, payment, until the
// site waits only for the card code (the pause) or books without one. Transient errors restart the
// attempt from the search, up to consent.maxRetries times, with backoff; each try is a step_attempt.

export interface AttemptDeps {
  context: BrowserContext;
  recorder: JobRecorder;
  plan: BookingPlan;
  /** Where the provider's booking starts (its start URL). */
  startUrl: string;
  signal: AbortSignal;
  stepDelayMs: number;
  timeoutMs: number;
  /** First retry waits this long, doubling each time (with jitter). */
  backoffMs: number;
  /** Where the run is now (for the report of a run stopped by its time limit). */
  progress: { step: string | null; url: string | null };
  /** Called once the provider's first step_attempt is recorded. */
  started?: () => void;
  /**
   * Whether a failing provider's last page is kept as evidence: only when someone can see it (the
   * job's owner, on /bookings). A job made with an API key alone has no such person.
   */
  keepEvidence?: boolean;
  /** Whether consent.maxJobDurationSeconds has passed: no new step, retry or provider is started then (the soft cap). */
  pastCap?: () => boolean;
}

/** The evidence is a courtesy: it may delay the move to the next provider by this much at most. */
const EVIDENCE_CAPTURE_MS = 3_000;

export interface TimeAdjustment {
  from: string;
  to: string;
}

/** The venue held is not the one asked for (a sister venue), as the consent allows. */
export interface VenueSwitch {
  from: string;
  to: string;
}

/** What the attempt decided within the consent, for the summary. */
export interface Decisions {
  adjusted?: TimeAdjustment;
  switched?: VenueSwitch;
}

export type AttemptOutcome =
  /** `field`: the card-code field the guard stopped at; null when the payment page asks for none (stopped before Pay). */
  | { kind: 'paused'; page: Page; guarded: GuardedPage; held?: Held; payment?: PaymentPage; step: string; control: string; field: string | null; decisions: Decisions }
  | { kind: 'completed'; held?: Held; code: string; decisions: Decisions }
  | { kind: 'failed'; failure: Failure };

export interface Failure {
  kind: FailureKind;
  message: string;
  step: string;
  provider: string;
  url: string;
  /** The last page as it was when this provider failed (screenshot and snapshot, card fields blanked), when it could be taken. */
  evidence?: Evidence;
}

const STEP_NAMES: Record<string, string> = {
  search: 'search',
  choose: 'choose an option',
  guest_details: 'guest details',
  review: 'review',
  payment: 'payment',
};

export async function attemptProvider(deps: AttemptDeps, driver: Driver): Promise<AttemptOutcome> {
  const { recorder, plan } = deps;
  const tries = plan.consent.maxRetries + 1;
  let last: Failure | null = null;
  for (let n = 1; n <= tries; n++) {
    throwIfAborted(deps.signal);
    throwIfPastCap(deps);
    recorder.recordAttempt(
      {
        type: 'step_attempt',
        providerId: driver.id,
        message: n === 1
          ? `Trying ${driver.name} (try 1 of up to ${tries}) for ${describeRequest(plan.request)}.`
          : `Retrying ${driver.name} from the search (try ${n} of up to ${tries}) after a transient error at ${STEP_NAMES[last!.step]}: ${last!.message}.`,
        data: { attempt: n, maxAttempts: tries },
      },
    ).catch(() => {});
    // From its first try on, the run is working at this provider (a time limit reached now is its outcome).
    if (n === 1) deps.started?.();
    const state = { step: 'search' };
    deps.progress.step = 'search';
    let page: Page;
    try {
      page = await within(deps.context.newPage(), deps.timeoutMs, 'open a tab');
    } catch (error) {
      if (deps.signal.aborted) throw new RunAborted(deps.signal.reason as AbortReason);
      last = { kind: 'transient', message: asFailure(error).message, step: 'search', provider: driver.id, url: '' };
      if (n < tries) await backoff(deps, n);
      continue;
    }
    try {
      const outcome = await flow(deps, driver, page, state);
      if (outcome.kind !== 'paused') await page.close().catch(() => {});
      return outcome;
    } catch (error) {
      const url = page.url();
      const failure = deps.signal.aborted || error instanceof RunAborted ? null : asFailure(error);
      // The failure that ends this provider (conclusive, or the last try): its page is kept as evidence, before the tab goes.
      const evidence = deps.keepEvidence && failure && (failure.kind !== 'transient' || n === tries) ? await captureEvidence(page, driver.id, Math.min(deps.timeoutMs, EVIDENCE_CAPTURE_MS)) : null;
      await page.close().catch(() => {});
      if (deps.signal.aborted) throw new RunAborted(deps.signal.reason as AbortReason);
      if (error instanceof RunAborted) throw error;
      last = { kind: failure!.kind, message: failure!.message, step: state.step, provider: driver.id, url: safeUrl(url), ...(evidence ? { evidence } : {}) };
      if (failure!.kind !== 'transient') return { kind: 'failed', failure: last };
      if (n < tries) await backoff(deps, n);
    }
  }
  return { kind: 'failed', failure: { ...last!, message: `still failing after ${tries} ${tries === 1 ? 'try' : 'tries'}: ${last!.message}` } };
}

async function backoff(deps: AttemptDeps, n: number): Promise<void> {
  const wait = deps.backoffMs * 2 ** (n - 1) * (0.75 + Math.random() * 0.5);
  await sleep(wait, undefined, { signal: deps.signal }).catch(() => {});
  throwIfAborted(deps.signal);
}

function throwIfAborted(signal: AbortSignal): void {
  if (signal.aborted) throw new RunAborted(signal.reason as AbortReason);
}

function throwIfPastCap(deps: AttemptDeps): void {
  if (deps.pastCap?.()) throw new RunAborted('soft_cap');
}

async function flow(deps: AttemptDeps, driver: Driver, page: Page, state: { step: string }): Promise<AttemptOutcome> {
  const { recorder, plan } = deps;
  const g = new GuardedPage(page, recorder, { timeoutMs: deps.timeoutMs });
  // Every step is bounded as a whole, whatever inside it might wait on a tab that stopped answering.
  const bounded = <T>(work: Promise<T>, what: string) => within(work, deps.timeoutMs * 2, `finish ${what}`);
  let held: Held | undefined;
  let payment: PaymentPage | undefined;
  const decisions: Decisions = {};
  const step = async (name: string, message: string) => {
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
  };

  try {
    await step('search', `Searching ${driver.name} for ${describeRequest(plan.request)}.`);
    await bounded(driver.search(g, deps.startUrl, plan.request), 'the search');
    let availability = await bounded(driver.availability(g), 'reading the availability');
    if (availability.kind === 'venues') {
      // The venue asked for is missing; the site suggests others: one is opened only if the request and consent choose it.
      const asked = venueAsked(plan.request);
      const pick = chooseVenue(plan, availability.venues);
      if (pick.kind === 'none' || !driver.chooseVenue) throw new ProviderFailure('no_availability', `${driver.name}: ${pick.why}`);
      const passedOver = availability.venues.filter((v) => v !== pick.offer).map((v) => v.label);
      decisions.switched = { from: asked, to: pick.offer.label };
      recorder.record({ type: 'venue_switched', providerId: driver.id, message: `Venue switched at ${driver.name} from ${asked} to ${pick.offer.label}: ${pick.why}.`, data: { fromVenue: asked, toVenue: pick.offer.label, passedOver } }).catch(() => {});
      await step('choose', `Opening ${pick.offer.label} at ${driver.name}, suggested for the missing ${asked}.`);
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
        break;
    }
    const choice = choose(plan, availability.offers);
    if (choice.kind === 'none') throw new ProviderFailure('no_availability', `nothing acceptable at ${driver.name}: ${choice.why}`);
    if (choice.adjusted) {
      decisions.adjusted = { from: choice.adjusted.from, to: choice.adjusted.to };
      recorder.record({
        type: 'time_adjusted',
        providerId: driver.id,
        message: `Time adjusted at ${driver.name} from ${choice.adjusted.from} to ${choice.adjusted.to}: ${choice.why}.`,
        data: { fromTime: choice.adjusted.from, toTime: choice.adjusted.to, minutes: choice.adjusted.minutes },
      }).catch(() => {});
    }

    await step('choose', `Choosing ${choice.offer.label}${choice.offer.time && choice.offer.time !== choice.offer.label ? ` (${choice.offer.time})` : ''} at ${driver.name}: ${choice.why}.`);
    await bounded(driver.choose(g, choice.offer), 'choosing');

    await step('guest_details', `Entering the guest details (${plan.traveller.givenName} ${plan.traveller.familyName}) at ${driver.name}.`);
    await bounded(driver.guestDetails(g, plan.traveller, plan.request), 'the guest details');
    const review = await bounded(driver.review(g), 'reading the review');
    if (!review) {
      const errors = await bounded(driver.formErrors(g), 'reading the form errors');
      throw new ProviderFailure(errors.length ? 'error' : 'unexpected_page', errors.length
        ? `${driver.name} did not accept the guest details: ${errors.slice(0, 3).join('; ')}`
        : `${driver.name} did not show its review page after the guest details (page title "${await g.title()}")`);
    }
    held = review.held;
    // A careful agent reads back what the site holds before going on to pay for it.
    // After opening a venue the site suggested, that venue is what must be held.
    const opened = decisions.switched && plan.request.scenario !== 'flight' ? { ...plan.request, venue: decisions.switched.to } : plan.request;
    const check = checkHeld(opened, held, choice.offer.time);
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

    await step('review', `Reviewing what ${driver.name} holds: ${held.venue}, ${held.when}, ${held.quantity}${held.item ? `, ${held.item}` : ''}, ${held.price}.`);
    await bounded(driver.confirmReview(g), 'the review');
    const code = await bounded(driver.confirmation(g), 'reading the confirmation');
    if (code) return { kind: 'completed', held, code, decisions };

    const pay = await bounded(driver.payment(g), 'reading the payment page');
    if (!pay) throw new ProviderFailure('unexpected_page', `${driver.name} did not show its payment page after the review (page title "${await g.title()}")`);
    payment = pay;
    await step('payment', `Reached ${driver.name}'s payment page: ${pay.price ?? held.price}, card on file ${pay.cardOnFile ?? 'not shown'}.`);
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
      return { kind: 'paused', page, guarded: g, held, payment, step: 'payment', control: 'Pay', field: null, decisions };
    }
    await bounded(driver.pay(g), 'the payment');
    // The guard let Pay through although the driver saw the code field (the guard did not read it as
    // one): the field went empty, and only a site that books without the code confirms.
    const paidCode = await bounded(driver.confirmation(g), 'reading the confirmation');
    if (paidCode) return { kind: 'completed', held, code: paidCode, decisions };
    throw new ProviderFailure('unexpected_page', `${driver.name}'s payment step did not lead to a confirmation (page title "${await g.title()}")`);
  } catch (error) {
    if (error instanceof CardStepReached) {
      await g.focusCardField().catch(() => false);
      return { kind: 'paused', page, guarded: g, held, payment, step: state.step, control: error.control, field: error.field, decisions };
    }
    throw error;
  }
}
