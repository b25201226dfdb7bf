import { sql, type Kysely } from 'kysely';
import { fromKysely } from 'pg-boss';
import type { Logger } from 'pino';
import { Webhook } from 'standardwebhooks';
import type { Config } from '../config.ts';
import type { DB } from '../db/schema.ts';
import { handoffToken } from '../jobs/handoff-tokens.ts';
import { appendAuditEvent } from '../jobs/audit.ts';
import { WEBHOOK_QUEUE, type Queue } from '../jobs/queue.ts';
import type { JobEvent } from '../jobs/webhook-outbox.ts';
import { decryptSecret } from './secrets.ts';
import { postSigned, type SendResult } from './send.ts';
import { lockJobRow } from '../jobs/rows.ts';

// Sending webhook deliveries, in every process that runs workers. Two parts:
// - the pump gives each new delivery (recorded with its job's status change, jobs/webhook-outbox.ts) its
//   pg-boss entry, in one transaction with marking it queued: a delivery is queued once;
// - the worker takes entries from the `webhook` queue and makes one attempt each. A failed attempt
//   records its outcome and sends the next attempt's entry, delayed by the retry schedule, in one
//   transaction: a restart loses nothing (the entry waits in the database), and any node may send it.
// At least once: an attempt the endpoint received but whose answer was lost is made again, with the
// same webhook-id, which the receiver dedupes on.

export interface WebhookSettings {
  /** Seconds before each retry; its length is the number of retries. */
  retrySchedule: readonly number[];
  disableAfterSeconds: number;
  timeoutMs: number;
  allowPrivate: boolean;
  baseUrl: string;
  secretKey: string;
  /** How often the pump looks for new deliveries. */
  pumpMs?: number;
}

export function webhookSettings(config: Config, secretKey: string): WebhookSettings {
  return {
    retrySchedule: config.WEBHOOK_RETRY_SCHEDULE,
    disableAfterSeconds: config.WEBHOOK_DISABLE_AFTER_SECONDS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
    baseUrl: config.BASE_URL,
    secretKey,
  };
}

interface DeliveryMessage {
  deliveryId: string;
}

/** The body a receiver gets, as Standard Webhooks shapes it: type, timestamp, data. Stable across attempts. */
export function payloadOf(settings: Pick<WebhookSettings, 'baseUrl' | 'secretKey'>, type: string, createdAt: Date, event: JobEvent): string {
  const handoffUrl = event.holdExpiresAt ? `${settings.baseUrl}/handoff/${handoffToken(settings.secretKey, event.jobId, event.holdExpiresAt)}` : undefined;
  return JSON.stringify({ type, timestamp: createdAt.toISOString(), data: { ...event, ...(handoffUrl ? { handoffUrl } : {}) } });
}

/** One signature per valid secret (the new one, and during a rotation's overlap the previous one), space-separated. */
export function signatureHeader(secrets: readonly string[], id: string, at: Date, payload: string): string {
  return secrets.map((secret) => new Webhook(secret).sign(id, at, payload)).join(' ');
}

export interface Webhooks {
  stop(): Promise<void>;
}

export async function startWebhooks(options: { db: Kysely<DB>; queue: Queue; log: Logger; settings: WebhookSettings }): Promise<Webhooks> {
  const { db, queue, log, settings } = options;
  let workerId = '';
  let stopped = false;

  const pump = async (): Promise<number> => {
    // Most rounds find nothing: a plain read on the partial index first, so an idle service opens
    // no write transaction twice a second on every node.
    const waiting = await db.selectFrom('webhook_deliveries').select('id').where('queued_at', 'is', null).limit(1).executeTakeFirst();
    if (!waiting) return 0;
    const moved = await db.transaction().execute(async (trx) => {
      const rows = await trx.selectFrom('webhook_deliveries').select('id').where('queued_at', 'is', null).orderBy('created_at').limit(100).forUpdate().skipLocked().execute();
      for (const row of rows) await queue.boss.send(WEBHOOK_QUEUE, { deliveryId: row.id } satisfies DeliveryMessage, { db: fromKysely(trx) });
      if (rows.length > 0) {
        await trx.updateTable('webhook_deliveries').set({ queued_at: sql<Date>`now()`, next_attempt_at: sql<Date>`now()` }).where('id', 'in', rows.map((r) => r.id)).execute();
      }
      return rows.length;
    });
    if (moved > 0 && workerId) queue.boss.notifyWorker(workerId);
    return moved;
  };

  const attempt = async (deliveryId: string): Promise<void> => {
    const row = await db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
      .select(['d.id', 'd.event_type', 'd.event', 'd.status', 'd.attempts', 'd.created_at', 'd.job_id', 'e.id as endpoint_id', 'e.url', 'e.secret_ciphertext', 'e.previous_secret_ciphertext', 'e.previous_secret_expires_at', 'e.disabled_at', 'e.deleted_at'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirst();
    if (!row || row.status === 'delivered' || row.status === 'failed' || row.status === 'cancelled') return;
    if (row.disabled_at || row.deleted_at) {
      await db.updateTable('webhook_deliveries').set({ status: 'cancelled', next_attempt_at: null, last_error: row.deleted_at ? 'the endpoint was removed' : 'the endpoint is disabled' }).where('id', '=', row.id).execute();
      return;
    }
    const payload = payloadOf(settings, row.event_type, row.created_at, row.event as unknown as JobEvent);
    const secrets = [decryptSecret(settings.secretKey, row.secret_ciphertext)];
    if (row.previous_secret_ciphertext && row.previous_secret_expires_at && row.previous_secret_expires_at > new Date()) secrets.push(decryptSecret(settings.secretKey, row.previous_secret_ciphertext));
    const at = new Date();
    const result = await postSigned(
      row.url,
      {
        'content-type': 'application/json',
        'user-agent': 'Concierge-Webhooks/1',
        'webhook-id': row.id,
        'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
        'webhook-signature': signatureHeader(secrets, row.id, at, payload),
      },
      payload,
      { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivate },
    );
    await record(row, result, at);
  };

  const record = async (row: { id: string; attempts: number; endpoint_id: string; job_id: string | null; url: string }, result: SendResult, at: Date): Promise<void> => {
    const attempts = row.attempts + 1;
    const outcome = { attempts, last_attempt_at: at, last_response_code: result.status, last_latency_ms: result.latencyMs, last_error: result.error };
    await db.transaction().execute(async (trx) => {
      if (result.ok) {
        await trx.updateTable('webhook_deliveries').set({ ...outcome, status: 'delivered', delivered_at: new Date(), next_attempt_at: null }).where('id', '=', row.id).execute();
        await trx.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', row.endpoint_id).execute();
        return;
      }
      const delay = settings.retrySchedule[attempts - 1];
      if (delay === undefined) {
        await trx.updateTable('webhook_deliveries').set({ ...outcome, status: 'failed', next_attempt_at: null }).where('id', '=', row.id).execute();
      } else {
        await trx.updateTable('webhook_deliveries').set({ ...outcome, status: 'retrying', next_attempt_at: new Date(Date.now() + delay * 1000) }).where('id', '=', row.id).execute();
        await queue.boss.send(WEBHOOK_QUEUE, { deliveryId: row.id } satisfies DeliveryMessage, { startAfter: delay, db: fromKysely(trx) });
      }
      // Failing since the first failure after its last success; failing for long enough, it is disabled.
      const endpoint = await trx
        .updateTable('webhook_endpoints')
        .set({ failing_since: sql<Date>`coalesce(failing_since, ${at})` })
        .where('id', '=', row.endpoint_id)
        .returning(['failing_since', 'disabled_at'])
        .executeTakeFirstOrThrow();
      const failingFor = (at.getTime() - (endpoint.failing_since ?? at).getTime()) / 1000;
      if (!endpoint.disabled_at && failingFor >= settings.disableAfterSeconds) await disable(trx, row, Math.round(failingFor));
    });
  };

  const disable = async (trx: Kysely<DB>, row: { endpoint_id: string; job_id: string | null; url: string }, failingFor: number): Promise<void> => {
    const reason = `every delivery failed for ${Math.round(failingFor / 3600 * 10) / 10} h`;
    await trx.updateTable('webhook_endpoints').set({ disabled_at: new Date(), disabled_reason: reason }).where('id', '=', row.endpoint_id).execute();
    log.warn({ endpointId: row.endpoint_id }, 'webhook endpoint disabled: its deliveries have failed for too long');
    // On the audit trail of the job whose event found it failing (the job row locked first, as every append does).
    if (row.job_id) {
      if (await lockJobRow(trx, row.job_id)) {
        await appendAuditEvent(trx, row.job_id, {
          type: 'webhook_endpoint_disabled',
          message: `The webhook endpoint ${row.url} was disabled: ${reason}. Nothing more is sent to it; the organisation can register it again.`,
          data: { endpointId: row.endpoint_id, reason },
        });
      }
    }
  };

  // 20 attempts at a time; while the batches come back full (a burst of status changes) the worker
  // fetches the next at once instead of after the 1 s poll: 100 deliveries are 5 batches back to
  // back, not 5 seconds apart.
  workerId = await queue.boss.work<DeliveryMessage>(WEBHOOK_QUEUE, { batchSize: 20, pollingIntervalSeconds: 1, burstWhenBatchFull: true }, async (jobs) => {
    await Promise.all(jobs.map((job) => attempt(job.data.deliveryId)));
  });
  const timer = setInterval(() => {
    if (!stopped) void pump().catch((error: unknown) => log.warn({ err: { message: (error as Error).message } }, 'webhook pump failed'));
  }, settings.pumpMs ?? 500);
  timer.unref();

  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await queue.boss.offWork(WEBHOOK_QUEUE, { wait: true }).catch(() => {});
    },
  };
}
