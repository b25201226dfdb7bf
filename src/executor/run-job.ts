import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Logger } from 'pino';
import type { BrowserContext } from 'playwright-core';
import type { BrowserPool } from '../browser/pool.ts';
import { trackRunningContext } from '../browser/running-tabs.ts';
import type { DB, JobsTable } from '../db/schema.ts';
import { toJob } from '../jobs/service.ts';
import { transition } from '../jobs/transition.ts';
import { DomainError, type JobStatus } from '../jobs/types.ts';
import type { Driver } from '../driver/types.ts';
import { watchForCancel } from './cancel.ts';
import { attemptProvider, type AttemptDeps, type Failure } from './attempt.ts';
import { RunAborted, within, type AbortReason } from './failures.ts';
import { installGuard } from './guard/index.ts';
import type { HoldRegistry } from './holds.ts';
import { JobRecorder, RunSuperseded } from './recorder.ts';
import { describeRequest, planFor, planProblem, type BookingPlan } from './request.ts';
import { HARD_CEILING_FACTOR } from './duration.ts';
import { openChain } from './run-chain.ts';
import { holdPaused, recordCompleted, recordFailures, recordFallback, recordStopped } from './run-outcomes.ts';
import { jobRowIn } from '../jobs/rows.ts';
import type { ProviderRegistry } from '../driver/registry.ts';

// One run of one job, from the queue's claim to its outcome: pending → running, the provider chain
// with fallback, then paused_payment (the browser session is handed to the hold registry), completed,
// or a failure status with its reasons. A run is fenced by its run id: if its job is taken over (this
// worker's heartbeat went silent and another worker claimed it), it stops and writes nothing more.

export interface ExecutorSettings {
  holdSeconds: number;
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
  /** The providers, with their drivers: handed in at start (the executor imports no driver). */
  providers: ProviderRegistry;
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

/** One run's parts that its steps share (run-chain.ts, run-outcomes.ts). */
export interface Run {
  deps: RunDeps;
  jobId: string;
  plan: BookingPlan;
  recorder: JobRecorder;
  /** Ends the run with a failure status: its event, the job's error (null: none) and its summary. */
  fail(to: JobStatus, event: Parameters<JobRecorder['transition']>[0]['event'], error: Record<string, unknown> | null, summary: string): Promise<void>;
  /**
   * The provider the run is working at: set at its first step_attempt and cleared once its outcome
   * is written, so a time limit reached in between blames no provider (none was tried, or it was counted).
   */
  current: { driver: Driver | null };
  progress: AttemptDeps['progress'];
}

/** Takes the job for this run (pending, or running in a run that stopped, → running); null when it is not this run's to take. */
async function startRun(deps: RunDeps, jobId: string, claim: Claim): Promise<{ row: Selectable<JobsTable>; runId: string } | null> {
  const { db } = deps;
  const row = await jobRowIn(db, jobId);
  // Already settled (a crash after the outcome was written, before the queue heard of it): nothing to do.
  if (!row || (row.status !== 'pending' && row.status !== 'running')) return null;
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
    if (error instanceof DomainError && error.code === 'invalid_transition') return null;
    throw error;
  }
  return { row, runId };
}

export async function runJob(deps: RunDeps, jobId: string, claim: Claim): Promise<void> {
  const started = await startRun(deps, jobId, claim);
  if (!started) return;
  const { row, runId } = started;

  const controller = new AbortController();
  const abort = (reason: AbortReason) => {
    if (!controller.signal.aborted) controller.abort(reason);
  };
  const recorder = new JobRecorder(deps.db, jobId, runId, { usedFallback: row.used_fallback }, () => abort('claim_lost'));
  const job = toJob(row);
  const plan = planFor(job);
  const startedAt = row.started_at ?? new Date();
  const run: Run = {
    deps,
    jobId,
    plan,
    recorder,
    fail: (to, event, error, summary) => recorder.transition({ to, from: ['running'], event, set: { summary, ...(error ? { error: JSON.stringify(error) } : {}) } }),
    current: { driver: null },
    progress: { step: null, url: null },
  };

  const problem = planProblem(plan);
  if (problem) {
    await run.fail('error', { type: 'job_failed', message: `Not started: ${problem.message}.`, data: { reason: problem.reason } }, { reason: problem.reason, step: 'plan', provider: null, url: null, message: problem.message }, `Not booked: ${problem.message}.`);
    return;
  }
  const chain = await openChain(run, job.scenario, row.mode);
  if (!chain) return;

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
  const unwatch = watchForCancel(deps.db, jobId, runId, onClaimLost);
  claim.signal.addEventListener('abort', onClaimLost);
  deps.stopping.addEventListener('abort', onStopping);
  if (claim.signal.aborted) onClaimLost();
  if (deps.stopping.aborted) onStopping();

  let context: BrowserContext | null = null;
  let paused = false;
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
      await run.fail('error', { type: 'job_failed', message: `Not booked: ${message}.`, data: { reason: 'browser_unavailable' } }, { reason: 'browser_unavailable', step: 'start', provider: null, url: null, message }, `Not booked: ${message}.`);
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
      progress: run.progress,
      keepEvidence: row.owner_user_id !== null,
      pastCap,
      started: () => {
        run.current.driver = driver;
      },
    });

    const { links } = chain;
    for (let i = 0; i < links.length; i++) {
      const { driver, startUrl } = links[i]!;
      if (pastCap()) throw new RunAborted('soft_cap');
      recorder.provider = driver.id;
      const outcome = await attemptProvider(attemptDeps(driver, startUrl), driver);
      // Paused only once the registry holds the session: until then the run closes it on failure.
      if (outcome.kind === 'paused') return await holdPaused(run, driver, outcome, context, guard, (holding) => (paused = holding));
      if (outcome.kind === 'completed') return await recordCompleted(run, driver, outcome);
      failures.push(outcome.failure);
      const next = links[i + 1]?.driver;
      if (next) await recordFallback(run, driver, outcome.failure, next);
    }
    await recordFailures(run, failures, chain.names);
  } catch (error) {
    const reason = error instanceof RunAborted ? error.reason : error instanceof RunSuperseded ? 'claim_lost' : controller.signal.aborted ? (controller.signal.reason as AbortReason) : null;
    if (reason === 'claim_lost') return; // another run owns the job now: write nothing
    // The queue retries it; on the last try it dead-letters it and the job is settled from there (dead-letter.ts).
    if (reason === 'shutting_down') throw new Error(SHUTTING_DOWN, { cause: error });
    if (!(await recordStopped(run, error, reason, claim.lastTry))) throw error;
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
