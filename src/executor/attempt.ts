import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page } from 'playwright-core';
import type { Driver, Held, PaymentPage } from '../driver/types.ts';
import { flow, throwIfAborted, throwIfPastCap } from './attempt-flow.ts';
import { asFailure, RunAborted, within, type AbortReason } from './failures.ts';
import { ProviderFailure, type FailureKind } from '../driver/failures.ts';
import { refusedNavigations } from '../browser/egress.ts';
import { keepAccessibilityTree } from '../browser/accessibility.ts';
import { openTab } from '../browser/pool.ts';
import { closeTab } from '../browser/close-tab.ts';
import { captureEvidence, type Evidence } from './evidence.ts';
import { safeUrl } from '../security/text.ts';
import type { GuardedPage, GuardedPageOptions } from './guard/page-api.ts';
import type { JobRecorder } from './recorder.ts';
import { describeRequest, type BookingPlan } from './request.ts';

// One provider attempt: search, choose within consent, guest details, review, payment, until the
// site waits only for the card code (the pause) or books without one (each try: attempt-flow.ts).
// Transient errors restart the attempt from the search, up to consent.maxRetries times, with
// backoff; each try is a step_attempt.

/** How long one page action or navigation of a run may take (AttemptDeps.timeoutMs): a slow site on a loaded machine. */
export const ACTION_TIMEOUT_MS = 30_000;

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
  /** Told of each action done on the provider's pages (bench/reach records its reference walk with it). */
  onAction?: GuardedPageOptions['onAction'];
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
  /** Booked with no card step (`code`: the site's reference), or a request the site will answer itself (`requestSent`: its words; no code). */
  | { kind: 'completed'; held?: Held; code: string | null; requestSent?: string; decisions: Decisions }
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
    const refusedBefore = refusedNavigations(deps.context).length;
    let page: Page;
    try {
      page = await within(openTab(deps.context), deps.timeoutMs, 'open a tab');
      if (driver.readsNames) await keepAccessibilityTree(page, deps.timeoutMs);
    } catch (error) {
      if (deps.signal.aborted) throw new RunAborted(deps.signal.reason as AbortReason);
      last = { kind: 'transient', message: asFailure(error).message, step: 'search', provider: driver.id, url: '' };
      if (n < tries) await backoff(deps, n);
      continue;
    }
    try {
      const outcome = await flow(deps, driver, page, state);
      if (outcome.kind !== 'paused') await closeTab(page);
      return outcome;
    } catch (error) {
      const url = page.url();
      // A page or frame the egress policy refused is why, whatever the driver made of what it saw.
      const blocked = refusedNavigations(deps.context, refusedBefore)[0];
      const failure = deps.signal.aborted || error instanceof RunAborted ? null
        : blocked ? new ProviderFailure('blocked_address', `the site led the browser to ${blocked}, which is not on the public internet: the egress policy refused it`)
        : asFailure(error);
      // The failure that ends this provider (conclusive, or the last try): its page is kept as evidence, before the tab goes.
      const evidence = deps.keepEvidence && failure && (failure.kind !== 'transient' || n === tries) ? await captureEvidence(page, driver.id, Math.min(deps.timeoutMs, EVIDENCE_CAPTURE_MS)) : null;
      await closeTab(page);
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
