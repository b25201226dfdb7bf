import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';

/**
 * Closes a tab, and one closed as a navigation commits too. Chromium can answer the close with
 * success and leave the tab open when the two race (crbug.com/536385539, microsoft/playwright#42068),
 * and page.close() then waits forever: an attempt whose page was navigating by itself as it failed
 * (a form a script sends a moment later) never ended. Not closed within `waitMs`, the close is asked
 * again by the page's own Page.close, which does close it; after three tries the tab is left for its
 * context's close.
 */
export async function closeTab(page: Page, waitMs = 1_000): Promise<void> {
  const closed = page.close().then(() => true, () => true);
  for (let tries = 0; tries < 3; tries++) {
    if (await Promise.race([closed, sleep(waitMs).then(() => false)])) return;
    await page.close({ runBeforeUnload: true }).catch(() => {});
  }
}
