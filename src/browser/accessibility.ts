import type { Page } from 'playwright-core';
import { timeLimit } from './time-limit.ts';

const kept = new WeakSet<Page>();

/**
 * Keeps Chromium's accessibility tree alive for a tab, so that reading an element's accessible name
 * (`computedName`, how the generic driver reads names and roles) is a lookup. Without it Chromium
 * builds a tree for each question and throws it away: 1.8 ms a control, 130 ms for a page of 73
 * controls, against 0.5 ms for all of them once the tree is kept (measured on the corpus's tavola).
 * A browser that cannot (not Chromium, a CDP session refused) reads names the slow way: never an error.
 * Asked again for the same tab (a spare's, kept when it was made), it does nothing.
 */
export async function keepAccessibilityTree(page: Page, timeoutMs: number): Promise<void> {
  if (kept.has(page)) return;
  const enabled = (async () => {
    const session = await page.context().newCDPSession(page);
    await session.send('Accessibility.enable');
    kept.add(page);
  })();
  await timeLimit(enabled.catch(() => {}), timeoutMs, () => {});
}
