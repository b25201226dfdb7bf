// Shared by the booking benchmarks (bench/executor.ts, bench/reach.ts): jobs created over REST with
// an API key, exactly as a client would, polled to their end, and timed by the service's own stamps.
import { loadavg } from 'node:os';
import { call } from '../../test/helpers/http.ts';
import type { TestService } from '../../test/helpers/service.ts';

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
export const ratio = (value: number, reference: number) => `${(value / reference).toFixed(2)}×`;

/** The 1, 5 and 15-minute load averages, for every benchmark's output (2 cores here). */
export const load = () => loadavg().map((l) => l.toFixed(1)).join(' ');

/** Polls (gently: the API shares the process and the embedded database with the worker) to the end. */
export async function settle(service: Pick<TestService, 'url'>, key: string, jobId: string, everyMs: number): Promise<any> {
  for (;;) {
    const read = await call(service.url, 'GET', `/api/v1/execution-jobs/${jobId}`, { key });
    if (!['pending', 'running'].includes(read.body.status)) return read.body;
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Creation to paused_payment, from the service's own timestamps (job createdAt, the paused_payment event). */
export function pausedAfterMs(job: any): number {
  const paused = job.decisionLog.find((e: any) => e.type === 'paused_payment');
  return Date.parse(paused.timestamp) - Date.parse(job.createdAt);
}

export function why(job: any): string {
  return `${job.status}${job.error ? ` (${job.error.reason}: ${job.error.message})` : ''}`;
}

/**
 * One booking to the payment page: the job's creation → paused_payment time, or why it did not
 * pause. The hold is let go at once, so that the site's inventory and the worker are free again.
 */
export async function tryBooking(service: TestService, key: string, body: unknown): Promise<{ ms: number } | { failed: string }> {
  const created = await call(service.url, 'POST', '/api/v1/execution-jobs', { key, body });
  if (created.status !== 202) return { failed: `creation answered ${created.status}: ${created.text}` };
  const job = await settle(service, key, created.body.jobId, 100);
  if (job.status !== 'paused_payment') return { failed: why(job) };
  await service.services.executor.holds.get(created.body.jobId)?.cancel();
  return { ms: pausedAfterMs(job) };
}

/** As tryBooking, for a booking that must pause: throws with the reason otherwise. */
export async function timedBooking(service: TestService, key: string, body: unknown): Promise<number> {
  const result = await tryBooking(service, key, body);
  if ('failed' in result) throw new Error(`job ended ${result.failed}`);
  return result.ms;
}
