import type { Kysely } from 'kysely';
import type { Page } from 'playwright-core';
import type { DB } from '../db/schema.ts';
import { JOB_ID_PATTERN } from '../jobs/types.ts';
import { within } from './failures.ts';
import { userOwnsJob } from '../jobs/rows.ts';
import { safeUrl } from '../security/text.ts';

// Evidence of a failed booking (issue 12 §4): the last page as a JPEG with every card field blanked,
// and its accessibility snapshot with card values removed. Taken before the failing tab is closed,
// bounded in time and size; a capture that fails or runs late is simply missing, never the job's failure.

export interface Evidence {
  providerId: string;
  url: string;
  screenshot: Buffer;
  snapshot: string;
}

/** Larger screenshots are not kept (a JPEG of the 1280×860 viewport is typically 50–200 kB). */
const MAX_SCREENSHOT_BYTES = 1_000_000;
const MAX_SNAPSHOT_CHARS = 200_000;

/** Everything that may show a card's number, expiry or code: blanked by an overlay in the screenshot (never typed into). */
const CARD_SELECTORS = [
  'input[autocomplete^="cc-" i]',
  'iframe',
  'input[name*="card" i]', 'input[id*="card" i]',
  'input[name*="cvc" i]', 'input[id*="cvc" i]', 'input[name*="cvv" i]', 'input[id*="cvv" i]',
  'input[name*="csc" i]', 'input[name*="security" i]', 'input[name*="expir" i]',
];
const CARD_LABEL = /card|cvc|cvv|csc|security code|expir|kartennummer|numéro de carte/i;

/** A textbox-like line of an aria snapshot with its name and, after the colon, its value. */
const FIELD_LINE = /^(\s*- (?:textbox|spinbutton|combobox|searchbox)\s+"([^"]*)"[^:\n]*):[^\n]*$/gim;
const CARD_NAME = /card|cvc|cvv|csc|security code|expir/i;
/** Values a card field holds whatever its name: a 3–4 digit code, an expiry like 12/29. */
const CARD_VALUE = /^\s*(?:\d{3,4}|\d{1,2}\s*\/\s*\d{2,4})\s*$/;
/** 12–19 digits, possibly grouped by spaces or dashes: a card number wherever it appears. */
const CARD_NUMBER = /\b\d(?:[ -]?\d){11,18}\b/g;

/**
 * The snapshot without card values: a field's value goes when its name speaks of a card, when the page
 * marks it as one (`cardNames`: the accessible names of its cc-* fields), or when the value looks like
 * a code or an expiry; any card-like number goes wherever it stands.
 */
export function redactSnapshot(snapshot: string, cardNames: string[] = []): string {
  const names = new Set(cardNames.map((n) => n.trim().toLowerCase()).filter(Boolean));
  return snapshot
    .replace(FIELD_LINE, (line, head: string, name: string) => {
      const value = line.slice(head.length + 1);
      return CARD_NAME.test(name) || names.has(name.trim().toLowerCase()) || CARD_VALUE.test(value) ? `${head}: [card field hidden]` : line;
    })
    .replace(CARD_NUMBER, '[number hidden]')
    .slice(0, MAX_SNAPSHOT_CHARS);
}

/** The names a person (and the snapshot) gives the page's cc-* fields: their labels and aria-labels. */
async function cardFieldNames(page: Page): Promise<string[]> {
  return page.locator('input[autocomplete^="cc-" i]').evaluateAll((inputs) =>
    inputs.flatMap((input) => {
      const el = input as HTMLInputElement;
      return [el.getAttribute('aria-label') ?? '', ...Array.from(el.labels ?? []).map((l) => l.textContent ?? ''), el.placeholder ?? ''];
    })).catch(() => []);
}

/** Captures the page as it is now, within `timeoutMs`; null when it cannot (a closed tab, a blank page, a timeout). */
export async function captureEvidence(page: Page, providerId: string, timeoutMs: number): Promise<Evidence | null> {
  try {
    if (page.isClosed()) return null;
    const url = safeUrl(page.url());
    if (!url || url.startsWith('about:')) return null;
    const mask = [...CARD_SELECTORS.map((s) => page.locator(s)), page.getByLabel(CARD_LABEL)];
    const work = (async () => {
      const screenshot = await page.screenshot({ type: 'jpeg', quality: 60, mask, maskColor: '#555', animations: 'disabled', caret: 'hide', timeout: timeoutMs });
      const snapshot = await page.locator('body').ariaSnapshot({ timeout: timeoutMs });
      return { screenshot, snapshot, names: await cardFieldNames(page) };
    })();
    work.catch(() => {});
    const { screenshot, snapshot, names } = await within(work, timeoutMs, 'capture the failed page');
    if (screenshot.length > MAX_SCREENSHOT_BYTES) return null;
    return { providerId, url, screenshot, snapshot: redactSnapshot(snapshot, names) };
  } catch {
    return null;
  }
}

/** Keeps a job's evidence (the newest replaces an older one of the same job). */
export async function saveEvidence(db: Kysely<DB>, jobId: string, evidence: Evidence): Promise<void> {
  await db
    .insertInto('job_evidence')
    .values({ job_id: jobId, provider_id: evidence.providerId, url: evidence.url, screenshot: evidence.screenshot, snapshot: evidence.snapshot })
    .onConflict((oc) => oc.column('job_id').doUpdateSet((eb) => ({
      provider_id: eb.ref('excluded.provider_id'),
      url: eb.ref('excluded.url'),
      screenshot: eb.ref('excluded.screenshot'),
      snapshot: eb.ref('excluded.snapshot'),
      created_at: new Date(),
    })))
    .execute();
}

/** The evidence of a job owned by `userId`, or null (missing, or another person's: the same answer). */
export async function ownedEvidence(db: Kysely<DB>, userId: number, jobId: string): Promise<{ url: string; providerId: string; screenshot: Uint8Array; snapshot: string; createdAt: Date } | null> {
  if (!JOB_ID_PATTERN.test(jobId)) return null;
  if (!(await userOwnsJob(db, userId, jobId))) return null;
  const row = await db
    .selectFrom('job_evidence')
    .select(['url', 'provider_id', 'screenshot', 'snapshot', 'created_at'])
    .where('job_id', '=', jobId)
    .executeTakeFirst();
  return row ? { url: row.url, providerId: row.provider_id, screenshot: row.screenshot, snapshot: row.snapshot, createdAt: row.created_at } : null;
}

/** Which of these jobs have evidence kept. */
export async function jobsWithEvidence(db: Kysely<DB>, jobIds: string[]): Promise<Set<string>> {
  if (jobIds.length === 0) return new Set();
  const rows = await db.selectFrom('job_evidence').select('job_id').where('job_id', 'in', jobIds).execute();
  return new Set(rows.map((r) => r.job_id));
}

/** Deletes evidence older than `days` days; returns how many rows went. */
export async function purgeEvidence(db: Kysely<DB>, days: number, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  const result = await db.deleteFrom('job_evidence').where('created_at', '<', cutoff).executeTakeFirst();
  return Number(result.numDeletedRows);
}
