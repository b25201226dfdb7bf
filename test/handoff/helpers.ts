import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { Logger } from 'pino';
import { createLogger } from '../../src/observability/logger.ts';
import { captureLogs } from '../helpers/log-capture.ts';
import type { TestService } from '../helpers/service.ts';

// Shared by the handoff end-to-end tests: a logger whose every line is kept, card codes to search
// for, and the person's side of the dev identity provider.

/** A debug-level logger (more is logged, so more is searched) whose lines are all kept. */
export function capturingLogger(level = 'debug'): { log: Logger; lines: () => string[] } {
  const capture = captureLogs();
  return { log: createLogger(level, capture), lines: () => capture.text().split('\n').filter(Boolean) };
}

/** A card code that nothing else will contain by chance: 4 digits, not a year, absent from `haystack`. */
export function distinctCode(haystack: string): string {
  for (;;) {
    const code = String(5000 + Math.floor(Math.random() * 4999));
    if (!containsCode(haystack, code)) return code;
  }
}

/** The code as a whole token: not inside a longer run of letters, digits, `-` or `_` (a port, an
 *  epoch time, a UUID's all-digit group such as `-7744-`, a base64url token), nor either part of a
 *  decimal number (a logged `responseTime` of 7744.12 or 12.7744 ms). A code leaked as a value, in a
 *  URL, a form or a sentence (`"7744"`, `cvc=7744`, `code 7744.`) is still found. */
export function containsCode(text: string, code: string): boolean {
  return new RegExp(`(?<![0-9A-Za-z_-]|[0-9]\\.)${code}(?![0-9A-Za-z_-]|\\.[0-9])`).test(text);
}

/** The first line carrying `code`, shown when a search fails so a chance match can be told from a leak. */
export function lineWithCode(lines: string[], code: string): string | undefined {
  return lines.find((line) => containsCode(line, code));
}

/**
 * Whether `lines` carry `code` one keystroke at a time: its characters, in order, each a lone JSON
 * string (`"key":"5"`, `{"text":"7"}`) on the same or later lines — what logging each key
 * message of a desktop keyboard would leave. Search only the lines written while the code was
 * typed: elsewhere, lone digits (header values, counters) could line up by chance.
 */
export function containsKeystrokes(lines: string[], code: string): boolean {
  let next = 0;
  for (const line of lines) {
    // A JSON string value of one character: after a colon, a bracket or a comma, before the next.
    for (const [, ch] of line.matchAll(/(?<=[:[,]\s*)"(.)"(?=\s*[,}\]])/gu)) {
      if (ch === code[next]) next += 1;
      if (next === code.length) return true;
    }
  }
  return false;
}

/** Signs in at the development identity provider if the page is showing its form. */
export async function signInAtDevIdp(page: Page, email: string): Promise<void> {
  await page.waitForURL((url) => url.pathname.includes('/dev-idp/interaction/'));
  await page.fill('input[name=email]', email);
  await Promise.all([page.waitForURL((url) => !url.pathname.includes('/dev-idp/')), page.click('button[type=submit].primary')]);
}

export async function userIdOf(service: TestService, email: string): Promise<number> {
  const row = await service.services.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  assert.ok(row, `${email} has signed in`);
  return Number(row.id);
}
