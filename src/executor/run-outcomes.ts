import type { BrowserContext } from 'playwright-core';
import type { Driver } from '../driver/types.ts';
import type { AttemptOutcome, Failure } from './attempt.ts';
import { durationEnding } from './duration.ts';
import { saveEvidence } from './evidence.ts';
import { within, type AbortReason } from './failures.ts';
import type { GuardControls } from './guard/index.ts';
import { handoffToken, handoffTokenHash } from '../jobs/handoff-tokens.ts';
import { completedSummary, failedSummary, finalStatus, heldDescription, heldRecord, pausedSummary, requestedSummary } from './outcome.ts';
import { RunSuperseded } from './recorder.ts';
import { describeRequest } from './request.ts';
import type { Run } from './run-job.ts';

// What a run writes as it ends: a hold handed to the registry (paused_payment), a booking made with
// no card step (completed), a fallback to the next provider, every provider's failure, or the
// reason it was stopped. Each is one transition or event through the run's recorder, so a run whose
// job was taken over writes none of them.

type Paused = Extract<AttemptOutcome, { kind: 'paused' }>;
type Completed = Extract<AttemptOutcome, { kind: 'completed' }>;

/**
 * Hands the held tab to the hold registry and records the pause. `held` is told when the registry
 * holds the session (and again if the pause could not be recorded after all): until then the run
 * closes the browser context itself on failure.
 */
export async function holdPaused(run: Run, driver: Driver, outcome: Paused, context: BrowserContext, guard: GuardControls, held: (holding: boolean) => void): Promise<void> {
  const { deps, jobId, plan, recorder } = run;
  const now = Date.now();
  const siteHold = (outcome.payment?.holdExpiresAt ?? outcome.held?.holdExpiresAt)?.getTime();
  const ownHold = now + deps.settings.holdSeconds * 1000;
  const expiresAt = new Date(siteHold && siteHold > now ? Math.min(siteHold, ownHold) : ownHold);
  const what = heldDescription(plan.request, outcome.held, outcome.payment, outcome.step);
  // No card-code field: the payment page would charge the card on file at one press of Pay.
  const codeAsked = outcome.field !== null;
  const summary = pausedSummary(driver, what, expiresAt, outcome.decisions, codeAsked);
  const token = handoffToken(deps.secretKey, jobId, expiresAt.toISOString());
  deps.holds.add({ jobId, driver, context, page: outcome.page, reader: outcome.guarded, guard, events: recorder, expiresAt, what, url: outcome.page.url().split('?')[0] ?? '' });
  held(true);
  try {
    await recorder.transition({
      to: 'paused_payment',
      from: ['running'],
      set: { summary, provider_id: driver.id, hold_expires_at: expiresAt, handoff_token_hash: handoffTokenHash(token), hold_instance: deps.holds.instanceId, hold_seen_at: new Date() },
      event: {
        type: 'paused_payment',
        providerId: driver.id,
        message: codeAsked
          ? `Stopped before the card security code at ${driver.name}: ${what}. The person completes the payment at the handoff URL until ${expiresAt.toISOString()}.`
          : `Stopped before the charge at ${driver.name}: ${what}. Its payment page charges the card on file without a security code; the person approves the charge at the handoff URL until ${expiresAt.toISOString()}.`,
        // What is held, as data for the handoff page and the person's bookings (null: the site asked for the code before its review page).
        data: { providerOutcome: 'accepted', holdExpiresAt: expiresAt.toISOString(), step: outcome.step, cardCodeAsked: codeAsked, held: outcome.held ? heldRecord(driver, plan.request, outcome.held, outcome.payment, outcome.decisions) : null },
      },
    });
  } catch (error) {
    // Not paused after all (the run lost its job): the session must not outlive it.
    held(false);
    deps.holds.forget(jobId);
    throw error;
  }
}

/** A booking the provider confirmed with no card step (payment at the venue), or a request it will answer itself. */
export async function recordCompleted(run: Run, driver: Driver, outcome: Completed): Promise<void> {
  if (outcome.code === null) return recordRequested(run, driver, outcome.requestSent ?? '', outcome);
  const what = heldDescription(run.plan.request, outcome.held, undefined, 'review');
  await run.recorder.transition({
    to: 'completed',
    from: ['running'],
    set: { summary: completedSummary(driver, what, outcome.code, outcome.decisions), provider_id: driver.id, confirmation_code: outcome.code },
    event: {
      type: 'job_completed',
      providerId: driver.id,
      message: `Booked at ${driver.name} with no card step (payment at the venue): confirmation ${outcome.code}.`,
      data: { providerOutcome: 'accepted', confirmationCode: outcome.code, held: outcome.held ? heldRecord(driver, run.plan.request, outcome.held, undefined, outcome.decisions) : null },
    },
  });
}

/**
 * A request sent, not a booking: the job is complete (nothing more for Concierge or the person to do
 * here), and its summary says plainly that the site has confirmed nothing yet and will answer
 * itself. No confirmation code: there is none.
 */
async function recordRequested(run: Run, driver: Driver, words: string, outcome: Completed): Promise<void> {
  const asked = describeRequest(run.plan.request);
  await run.recorder.transition({
    to: 'completed',
    from: ['running'],
    set: { summary: requestedSummary(driver, asked, words, run.plan.traveller.email, outcome.decisions), provider_id: driver.id, confirmation_code: null },
    event: {
      type: 'job_completed',
      providerId: driver.id,
      message: `Sent a reservation request to ${driver.name}, not a confirmed booking: the site says "${words}".`,
      data: { providerOutcome: 'requested', confirmationCode: null, requested: asked },
    },
  });
}

/** The provider failed and the next one takes over: its outcome is this provider_fallback, and the next is not at work until its first try. */
export async function recordFallback(run: Run, driver: Driver, failure: Failure, next: Driver): Promise<void> {
  run.current.driver = null;
  run.progress.step = null;
  run.progress.url = null;
  run.recorder.usedFallback = true;
  await run.recorder.record(
    {
      type: 'provider_fallback',
      providerId: driver.id,
      message: `${driver.name} failed at ${failure.step.replace('_', ' ')}: ${failure.message}. Falling back to ${next.name}.`,
      data: { providerOutcome: 'failed', fromProvider: driver.id, toProvider: next.id, reason: failure.kind },
    },
    { used_fallback: true },
  );
}

/** Every provider failed: the job's final status from their failures, and the last failed page kept as evidence. */
export async function recordFailures(run: Run, failures: Failure[], names: Record<string, string>): Promise<void> {
  const { deps, jobId, plan } = run;
  // The job_failed event closes the last provider's attempt (its providerOutcome); an error is described by its cause.
  const last = failures[failures.length - 1]!;
  const { status, reason, cause } = finalStatus(failures);
  const summary = failedSummary(status, plan.request, failures, names);
  const each = failures.map((f) => `${names[f.provider] ?? f.provider}: ${f.message}`).join('; ');
  await run.fail(
    status,
    {
      type: 'job_failed',
      providerId: last.provider,
      message: `Not booked (${status}): ${failures.length === 1 ? 'the only provider' : `all ${failures.length} providers`} failed for ${describeRequest(plan.request)}. ${each}.`,
      data: { providerOutcome: 'failed', reason, status },
    },
    status === 'error' && cause ? { reason, step: cause.step, provider: cause.provider, url: cause.url, message: cause.message, attempts: failures.map((f) => ({ provider: f.provider, kind: f.kind, step: f.step, message: f.message })) } : null,
    summary,
  );
  // The last page that failed, for the job's owner on /bookings; losing it never changes the outcome written above.
  const evidence = failures.findLast((f) => f.evidence)?.evidence;
  if (evidence) {
    await within(saveEvidence(deps.db, jobId, evidence), deps.settings.timeoutMs, 'keep the evidence').catch((error: unknown) => {
      deps.log.warn({ jobId, err: { message: (error as Error).message.split('\n')[0] } }, 'failed booking evidence not kept');
    });
  }
}

/**
 * A run stopped by its time limits, or by an error on the queue's last try: the job ends as an error
 * that says why. Returns false when the error is the queue's to retry (an earlier try).
 */
export async function recordStopped(run: Run, error: unknown, reason: AbortReason | null, lastTry: boolean): Promise<boolean> {
  if (reason === 'max_duration_exceeded' || reason === 'soft_cap') {
    await run.fail('error', ...durationEnding(reason === 'soft_cap' ? 'soft' : 'hard', run.plan, run.current.driver, run.progress));
    return true;
  }
  if (!lastTry) return false;
  const message = (error as Error).message?.split('\n')[0] ?? 'unknown error';
  run.deps.log.error({ jobId: run.jobId, err: { message } }, 'executor run failed');
  try {
    // The attempt under way ends here: its provider outcome, so provider metrics count it.
    const driver = run.current.driver;
    await run.fail(
      'error',
      { type: 'job_failed', ...(driver ? { providerId: driver.id } : {}), message: `Not booked: an internal error stopped the run (${message}).`, data: { reason: 'internal_error', ...(driver ? { providerOutcome: 'failed' } : {}) } },
      { reason: 'internal_error', step: run.progress.step, provider: driver?.id ?? null, url: run.progress.url, message },
      `Not booked: an internal error stopped the run.`,
    );
  } catch (failure) {
    if (failure instanceof RunSuperseded) return true;
    // Not written (the recorder failed before): the queue dead-letters the entry and the job is settled from there.
    throw failure;
  }
  return true;
}
