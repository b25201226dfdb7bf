import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BrowserContext } from 'playwright-core';
import type { BrowserPool } from '../browser/pool.ts';
import { trackRunningContext } from '../browser/running-tabs.ts';
import type { DB } from '../db/schema.ts';
import { toJob } from '../jobs/service.ts';
import { transition } from '../jobs/transition.ts';
import { DomainError, type JobStatus } from '../jobs/types.ts';
import { driverFor, loadProviders, providerChain } from '../providers/registry.ts';
import type { Driver } from '../providers/types.ts';
import { saveEvidence } from './evidence.ts';
import { watchForCancel } from './cancel.ts';
import { attemptProvider, type AttemptDeps, type Failure } from './attempt.ts';
import { RunAborted, within, type AbortReason } from './failures.ts';
import { installGuard } from './guard/index.ts';
import { handoffToken, handoffTokenHash } from './handoff.ts';
import type { HoldRegistry } from './holds.ts';
import { completedSummary, failedSummary, finalStatus, heldDescription, heldRecord, pausedSummary } from './outcome.ts';
import { JobRecorder, RunSuperseded } from './recorder.ts';
import { describeRequest, planFor, planProblem } from './request.ts';
import { durationEnding, HARD_CEILING_FACTOR } from './duration.ts';

// One run of one job, from the queue's claim to its outcome: pending → running, the provider chain
// with fallback, then paused_payment (the browser session is handed to the hold registry), completed,
// or a failure status with its reasons. A run is fenced by its run id: if its job is taken over (this
// worker's heartbeat went silent and another worker claimed it), it stops and writes nothing more.

export interface ExecutorSettings {
  holdSeconds: number;
  providerUrlTemplate: string;
  stepDelayMs: number;
  /** Navigation and action timeout in the browser. */
  timeoutMs: number;
  /** First retry backoff (doubles per retry). */
  backoffMs: number;
}

export interface RunDeps {
  db: Kysely<DB>;
  pool: BrowserPool;
  holds: HoldRegistry;
  log: Logger;
  secretKey: string;
  settings: ExecutorSettings;
  /** Aborted when the process is shutting down. */
  stopping: AbortSignal;
}

export interface Claim {
  /** Aborted by the queue when this worker no longer holds the job. */
  signal: AbortSignal;
  retryCount: number;
  /** The queue will not retry this job again if this run fails. */
  lastTry: boolean;
  /** What the queue recorded when the previous try of this entry failed (pg-boss's `output`). */
  previousOutput?: unknown;
}

const SHUTTING_DOWN = 'the worker is shutting down; the job will be taken up again';

/** Why the previous run of a job taken up again stopped, as far as the queue knows. */
export function previousRunEnd(output: unknown): string {
  const o = (output ?? {}) as { message?: unknown; value?: { message?: unknown } };
  // pg-boss's supervisor writes this when a claimed entry's heartbeat ran out (a killed or hung worker).
  if (o.value?.message === 'job heartbeat timeout') return 'the previous run stopped responding (its heartbeat went silent)';
  if (o.message === SHUTTING_DOWN) return 'the previous run was interrupted by its worker shutting down';
  return 'the previous run stopped before finishing';
}

export async function runJob(deps: RunDeps, jobId: string, claim: Claim): Promise<void> {
  const { db } = deps;
  const row = await db.selectFrom('jobs').selectAll().where('id', '=', jobId).executeTakeFirst();
  // Already settled (a crash after the outcome was written, before the queue heard of it): nothing to do.
  if (!row || (row.status !== 'pending' && row.status !== 'running')) return;
  const resumed = row.status === 'running';
  const runId = randomUUID();
  try {
    await transition(db, jobId, {
      to: 'running',
      from: ['pending', 'running'],
      set: { run_id: runId, run_instance: deps.holds.instanceId, summary: `Running: booking ${describeRequest(planFor(toJob(row)).request)}.`, ...(row.started_at ? {} : { started_at: new Date() }) },
      event: resumed
        ? { type: 'job_started', message: `Taken up again from the start by another worker: ${previousRunEnd(claim.previousOutput)}. Queue try ${claim.retryCount + 1}.`, data: { resumed: true, previousRunId: row.run_id, retryCount: claim.retryCount } }
        : { type: 'job_started', message: 'A worker took the job; it opens a fresh browser session for it.', data: { retryCount: claim.retryCount } },
    });
  } catch (error) {
    if (error instanceof DomainError && error.code === 'invalid_transition') return;
    throw error;
  }

  const controller = new AbortController();
  const abort = (reason: AbortReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const recorder = new JobRecorder(db, jobId, runId, { usedFallback: row.used_fallback }, () => abort('claim_lost'));
  const job = toJob(row);
  const plan = planFor(job);
  const startedAt = row.started_at ?? new Date();
  const fail = (to: JobStatus, event: Parameters<JobRecorder['transition']>[0]['event'], error: Record<string, unknown> | null, summary: string) =>
    recorder.transition({ to, from: ['running'], event, set: { summary, ...(error ? { error: JSON.stringify(error) } : {}) } });

  const problem = planProblem(plan);
  if (problem) {
    await fail('error', { type: 'job_failed', message: `Not started: ${problem.message}.`, data: { reason: problem.reason } }, { reason: problem.reason, step: 'plan', provider: null, url: null, message: problem.message }, `Not booked: ${problem.message}.`);
    return;
  }
  // The registry as it is now: a provider added or removed since the last job counts from this one.
  const providers = await loadProviders(db);
  const names: Record<string, string> = Object.fromEntries(providers.map((p) => [p.id, p.name]));
  const chain = providerChain(providers, job.scenario, plan.consent, row.mode);
  const links: Array<{ driver: Driver; startUrl: string }> = [];
  for (const provider of chain.providers) {
    try {
      links.push(driverFor(provider, deps.settings.providerUrlTemplate));
    } catch (error) {
      chain.skipped.push({ id: provider.id, reason: `its driver could not be started: ${(error as Error).message.split('\n')[0]}` });
    }
  }
  const skipped = chain.skipped.map((s) => `${names[s.id] ?? s.id} skipped (${s.reason})`);
  await recorder.record({
    type: 'step_started',
    message: links.length
      ? `Provider chain for this ${job.scenario}: ${links.map((l) => l.driver.name).join(', then ')}.${skipped.length ? ` ${skipped.join('; ')}.` : ''}`
      : `No provider is left for this ${job.scenario}: ${skipped.join('; ')}.`,
    // The names are recorded with the ids, so a registered provider removed later keeps its name in this job's history.
    data: { step: 'plan', providers: links.map((l) => l.driver.id), names: Object.fromEntries(links.map((l) => [l.driver.id, l.driver.name])), skipped: chain.skipped },
  });
  if (links.length === 0) {
    const message = row.mode && chain.skipped.some((s) => s.reason.includes(' mode'))
      ? `consent.allowedProviders, consent.blockedProviders and the job's ${row.mode} mode leave no provider for this scenario`
      : chain.skipped.some((s) => s.reason.startsWith('its driver'))
        ? 'no provider of this scenario could be started'
        : 'consent.allowedProviders and consent.blockedProviders leave no provider for this scenario';
    await fail('error', { type: 'job_failed', message: `Not booked: ${message}.`, data: { reason: 'no_providers' } }, { reason: 'no_providers', step: 'plan', provider: null, url: null, message }, `Not booked: ${message}.`);
    return;
  }

  // consent.maxJobDurationSeconds is a soft cap, counted from the job's first start (a run taken up
  // again gets no fresh allowance): once it passes, the step under way finishes, a hold it reaches
  // is kept, and no new step, retry or provider starts (attempt.ts throws soft_cap at the next
  // boundary). The hard ceiling, HARD_CEILING_FACTOR times the cap, stops a run that hangs.
  const capMs = plan.consent.maxJobDurationSeconds * 1000;
  const pastCap = () => Date.now() >= startedAt.getTime() + capMs;
  const remaining = startedAt.getTime() + capMs * HARD_CEILING_FACTOR - Date.now();
  const deadline = setTimeout(() => abort('max_duration_exceeded'), Math.max(0, remaining));
  const onClaimLost = () => abort('claim_lost');
  const onStopping = () => abort('shutting_down');
  // A cancel (POST …/cancel, in any process) takes the job from this run in its row: stop at once,
  // rather than at the next write the fence refuses. Like a lost claim, the run then writes nothing.
  const unwatch = watchForCancel(db, jobId, runId, onClaimLost);
  claim.signal.addEventListener('abort', onClaimLost);
  deps.stopping.addEventListener('abort', onStopping);
  if (claim.signal.aborted) onClaimLost();
  if (deps.stopping.aborted) onStopping();

  let context: BrowserContext | null = null;
  let paused = false;
  // The provider the run is working at: set at its first step_attempt and cleared once its outcome is
  // written, so a time limit reached in between blames no provider (none was tried, or it was counted).
  const current: { driver: Driver | null } = { driver: null };
  const progress: AttemptDeps['progress'] = { step: null, url: null };
  // Closing the context interrupts whatever the browser is doing when the run must stop.
  const closeOnAbort = () => {
    if (!paused) void context?.close().catch(() => {});
  };
  controller.signal.addEventListener('abort', closeOnAbort);

  try {
    try {
      context = await within(deps.pool.newContext(), deps.settings.timeoutMs, 'open a browser context');
      trackRunningContext(jobId, context);
    } catch (error) {
      const message = `the browser could not be started: ${(error as Error).message.split('\n')[0]}`;
      deps.log.error({ jobId, err: { message } }, 'browser unavailable');
      await fail('error', { type: 'job_failed', message: `Not booked: ${message}.`, data: { reason: 'browser_unavailable' } }, { reason: 'browser_unavailable', step: 'start', provider: null, url: null, message }, `Not booked: ${message}.`);
      return;
    }
    if (controller.signal.aborted) throw new RunAborted(controller.signal.reason as AbortReason);
    const guard = await within(installGuard(context, recorder), deps.settings.timeoutMs, 'install the payment guard');
    const failures: Failure[] = [];
    const attemptDeps = (driver: Driver, startUrl: string): AttemptDeps => ({
      context: context!,
      recorder,
      plan,
      startUrl,
      signal: controller.signal,
      stepDelayMs: deps.settings.stepDelayMs,
      timeoutMs: deps.settings.timeoutMs,
      backoffMs: deps.settings.backoffMs,
      progress,
      keepEvidence: row.owner_user_id !== null,
      pastCap,
      started: () => {
        current.driver = driver;
      },
    });

    for (let i = 0; i < links.length; i++) {
      const { driver, startUrl } = links[i]!;
      if (pastCap()) throw new RunAborted('soft_cap');
      recorder.provider = driver.id;
      const outcome = await attemptProvider(attemptDeps(driver, startUrl), driver);

      if (outcome.kind === 'paused') {
        const now = Date.now();
        const siteHold = (outcome.payment?.holdExpiresAt ?? outcome.held?.holdExpiresAt)?.getTime();
        const ownHold = now + deps.settings.holdSeconds * 1000;
        const expiresAt = new Date(siteHold && siteHold > now ? Math.min(siteHold, ownHold) : ownHold);
        const what = heldDescription(plan.request, outcome.held, outcome.payment, outcome.step);
        // No card-code field: the payment page would charge the card on file at one press of Pay.
        const codeAsked = outcome.field !== null;
        const summary = pausedSummary(driver, what, expiresAt, outcome.decisions, codeAsked);
        const token = handoffToken(deps.secretKey, jobId, expiresAt.toISOString());
        deps.holds.add({ jobId, driver, context, page: outcome.page, guard, events: recorder, expiresAt, what, url: outcome.page.url().split('?')[0] ?? '' });
        paused = true; // only once the registry holds the session: until then the run closes it on failure
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
          paused = false;
          deps.holds.forget(jobId);
          throw error;
        }
        return;
      }

      if (outcome.kind === 'completed') {
        const what = heldDescription(plan.request, outcome.held, undefined, 'review');
        await recorder.transition({
          to: 'completed',
          from: ['running'],
          set: { summary: completedSummary(driver, what, outcome.code, outcome.decisions), provider_id: driver.id, confirmation_code: outcome.code },
          event: {
            type: 'job_completed',
            providerId: driver.id,
            message: `Booked at ${driver.name} with no card step (payment at the venue): confirmation ${outcome.code}.`,
            data: { providerOutcome: 'accepted', confirmationCode: outcome.code, held: outcome.held ? heldRecord(driver, plan.request, outcome.held, undefined, outcome.decisions) : null },
          },
        });
        return;
      }

      failures.push(outcome.failure);
      const next = links[i + 1]?.driver;
      if (next) {
        // Its outcome is the provider_fallback below; the next provider is not at work until its first try.
        current.driver = null;
        progress.step = null;
        progress.url = null;
        recorder.usedFallback = true;
        await recorder.record(
          {
            type: 'provider_fallback',
            providerId: driver.id,
            message: `${driver.name} failed at ${outcome.failure.step.replace('_', ' ')}: ${outcome.failure.message}. Falling back to ${next.name}.`,
            data: { providerOutcome: 'failed', fromProvider: driver.id, toProvider: next.id, reason: outcome.failure.kind },
          },
          { used_fallback: true },
        );
      }
    }

    // The job_failed event closes the last provider's attempt (its providerOutcome); an error is described by its cause.
    const last = failures[failures.length - 1]!;
    const { status, reason, cause } = finalStatus(failures);
    const summary = failedSummary(status, plan.request, failures, names);
    const each = failures.map((f) => `${names[f.provider] ?? f.provider}: ${f.message}`).join('; ');
    await fail(
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
      await within(saveEvidence(db, jobId, evidence), deps.settings.timeoutMs, 'keep the evidence').catch((error: unknown) => {
        deps.log.warn({ jobId, err: { message: (error as Error).message.split('\n')[0] } }, 'failed booking evidence not kept');
      });
    }
  } catch (error) {
    const reason = error instanceof RunAborted ? error.reason : error instanceof RunSuperseded ? 'claim_lost' : controller.signal.aborted ? (controller.signal.reason as AbortReason) : null;
    if (reason === 'claim_lost') return; // another run owns the job now: write nothing
    // The queue retries it; on the last try it dead-letters it and the job is settled from there (dead-letter.ts).
    if (reason === 'shutting_down') throw new Error(SHUTTING_DOWN, { cause: error });
    if (reason === 'max_duration_exceeded' || reason === 'soft_cap') {
      await fail('error', ...durationEnding(reason === 'soft_cap' ? 'soft' : 'hard', plan, current.driver, progress));
      return;
    }
    if (claim.lastTry) {
      const message = (error as Error).message?.split('\n')[0] ?? 'unknown error';
      deps.log.error({ jobId, err: { message } }, 'executor run failed');
      try {
        // The attempt under way ends here: its provider outcome, so provider metrics count it.
        const driver = current.driver;
        await fail(
          'error',
          { type: 'job_failed', ...(driver ? { providerId: driver.id } : {}), message: `Not booked: an internal error stopped the run (${message}).`, data: { reason: 'internal_error', ...(driver ? { providerOutcome: 'failed' } : {}) } },
          { reason: 'internal_error', step: progress.step, provider: driver?.id ?? null, url: progress.url, message },
          `Not booked: an internal error stopped the run.`,
        );
      } catch (failure) {
        if (failure instanceof RunSuperseded) return;
        // Not written (the recorder failed before): the queue dead-letters the entry and the job is settled from there.
        throw failure;
      }
      return;
    }
    throw error;
  } finally {
    clearTimeout(deadline);
    unwatch();
    claim.signal.removeEventListener('abort', onClaimLost);
    deps.stopping.removeEventListener('abort', onStopping);
    controller.signal.removeEventListener('abort', closeOnAbort);
    if (!paused) await context?.close().catch(() => {});
    await recorder.flush().catch(() => {});
  }
}
