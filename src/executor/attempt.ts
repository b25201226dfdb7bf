import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import type { Driver, Held, PaymentPage } from '../providers/types.ts';
import { choose } from './decide.ts';
import { asFailure, oneLine, ProviderFailure, RunAborted, type AbortReason, type FailureKind } from './failures.ts';
import { CardStepReached, GuardedPage } from './guard/page-api.ts';
import type { JobRecorder } from './recorder.ts';
import { describeRequest, type BookingPlan } from './request.ts';

// One provider attempt: search, choose within consent, guest details, review, payment, until the
// site waits only for the card code (the pause) or books without one. Transient errors restart the
// attempt from the search, up to consent.maxRetries times, with backoff; each try is a step_attempt.

export interface AttemptDeps {
  context: BrowserContext;
  recorder: JobRecorder;
  plan: BookingPlan;
  baseUrl: string;
  signal: AbortSignal;
  stepDelayMs: number;
  timeoutMs: number;
  /** First retry waits this long, doubling each time (with jitter). */
  backoffMs: number;
}

export interface TimeAdjustment {
  from: string;
  to: string;
}

export type AttemptOutcome =
  | { kind: 'paused'; page: Page; guarded: GuardedPage; held?: Held; payment?: PaymentPage; step: string; control: string; field: string; adjusted?: TimeAdjustment }
  | { kind: 'completed'; held?: Held; code: string; adjusted?: TimeAdjustment }
  | { kind: 'failed'; failure: Failure };

export interface Failure {
  kind: FailureKind;
  message: string;
  step: string;
  provider: string;
  url: string;
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
    recorder.attemptCount += 1;
    recorder.record(
      {
        type: 'step_attempt',
        providerId: driver.id,
        message: n === 1
          ? `Trying ${driver.name} (try 1 of up to ${tries}) for ${describeRequest(plan.request)}.`
          : `Retrying ${driver.name} from the search (try ${n} of up to ${tries}) after a transient error at ${STEP_NAMES[last!.step]}: ${last!.message}.`,
        data: { attempt: n, maxAttempts: tries },
      },
      { attempt_count: recorder.attemptCount },
    ).catch(() => {});
    const page = await deps.context.newPage();
    const state = { step: 'search' };
    try {
      const outcome = await flow(deps, driver, page, state);
      if (outcome.kind !== 'paused') await page.close().catch(() => {});
      return outcome;
    } catch (error) {
      const url = page.url();
      await page.close().catch(() => {});
      if (deps.signal.aborted) throw new RunAborted(deps.signal.reason as AbortReason);
      if (error instanceof RunAborted) throw error;
      const failure = asFailure(error);
      last = { kind: failure.kind, message: failure.message, step: state.step, provider: driver.id, url: safeUrl(url) };
      if (failure.kind !== 'transient') return { kind: 'failed', failure: last };
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

/** The URL without query or fragment (they may carry personal details). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
}

async function flow(deps: AttemptDeps, driver: Driver, page: Page, state: { step: string }): Promise<AttemptOutcome> {
  const { recorder, plan } = deps;
  const g = new GuardedPage(page, recorder, { timeoutMs: deps.timeoutMs });
  let held: Held | undefined;
  let payment: PaymentPage | undefined;
  let adjusted: TimeAdjustment | undefined;
  const step = async (name: string, message: string) => {
    throwIfAborted(deps.signal);
    state.step = name;
    if (deps.stepDelayMs > 0) await sleep(deps.stepDelayMs, undefined, { signal: deps.signal }).catch(() => {});
    throwIfAborted(deps.signal);
    // Written in order behind the run's other events; the flow need not wait for the database.
    recorder.record({ type: 'step_started', providerId: driver.id, message, data: { step: name } }).catch(() => {});
  };

  try {
    await step('search', `Searching ${driver.name} for ${describeRequest(plan.request)}.`);
    await driver.search(g, deps.baseUrl, plan.request);
    const availability = await driver.availability(g);
    switch (availability.kind) {
      case 'none':
        throw new ProviderFailure('no_availability', `${driver.name} has no availability (the site says: "${oneLine(availability.message, 160)}")`);
      case 'login_wall':
        throw new ProviderFailure('login_wall', `${driver.name} asks to sign in before booking ("${oneLine(availability.message, 120)}"); the service does not sign in on the person's behalf`);
      case 'captcha':
        throw new ProviderFailure('captcha', `${driver.name} shows a CAPTCHA ("${oneLine(availability.message, 120)}"); the service does not solve CAPTCHAs`);
      case 'unexpected':
        throw new ProviderFailure('unexpected_page', `${availability.message} (page title "${await g.title()}")`);
      case 'offers':
        break;
    }
    const choice = choose(plan, availability.offers);
    if (choice.kind === 'none') throw new ProviderFailure('no_availability', `nothing acceptable at ${driver.name}: ${choice.why}`);
    if (choice.adjusted) {
      adjusted = { from: choice.adjusted.from, to: choice.adjusted.to };
      recorder.record({
        type: 'time_adjusted',
        providerId: driver.id,
        message: `Time adjusted at ${driver.name} from ${choice.adjusted.from} to ${choice.adjusted.to}: ${choice.why}.`,
        data: { fromTime: choice.adjusted.from, toTime: choice.adjusted.to, minutes: choice.adjusted.minutes },
      }).catch(() => {});
    }

    await step('choose', `Choosing ${choice.offer.label}${choice.offer.time && choice.offer.time !== choice.offer.label ? ` (${choice.offer.time})` : ''} at ${driver.name}: ${choice.why}.`);
    await driver.choose(g, choice.offer);

    await step('guest_details', `Entering the guest details (${plan.traveller.givenName} ${plan.traveller.familyName}) at ${driver.name}.`);
    await driver.guestDetails(g, plan.traveller, plan.request);
    const review = await driver.review(g);
    if (!review) {
      const errors = await driver.formErrors(g);
      throw new ProviderFailure(errors.length ? 'error' : 'unexpected_page', errors.length
        ? `${driver.name} did not accept the guest details: ${errors.slice(0, 3).join('; ')}`
        : `${driver.name} did not show its review page after the guest details (page title "${await g.title()}")`);
    }
    held = review.held;

    await step('review', `Reviewing what ${driver.name} holds: ${held.venue}, ${held.when}, ${held.quantity}${held.item ? `, ${held.item}` : ''}, ${held.price}.`);
    await driver.confirmReview(g);
    const code = await driver.confirmation(g);
    if (code) return { kind: 'completed', held, code, adjusted };

    const pay = await driver.payment(g);
    if (!pay) throw new ProviderFailure('unexpected_page', `${driver.name} did not show its payment page after the review (page title "${await g.title()}")`);
    payment = pay;
    await step('payment', `Reached ${driver.name}'s payment page: ${pay.price ?? held.price}, card on file ${pay.cardOnFile ?? 'not shown'}.`);
    await driver.pay(g);
    // The guard let Pay through, so the form had no card-code field: the site booked without one.
    const paidCode = await driver.confirmation(g);
    if (paidCode) return { kind: 'completed', held, code: paidCode, adjusted };
    throw new ProviderFailure('unexpected_page', `${driver.name}'s payment step did not lead to a confirmation (page title "${await g.title()}")`);
  } catch (error) {
    if (error instanceof CardStepReached) {
      await g.focusCardField().catch(() => false);
      return { kind: 'paused', page, guarded: g, held, payment, step: state.step, control: error.control, field: error.field, adjusted };
    }
    throw error;
  }
}
