import type { BrowserContext } from 'playwright-core';
import { CHANGE_LOG_SCRIPT, OPEN_IN_TAB_SCRIPT } from './page-script.ts';

/**
 * The init scripts every run's context has besides the guard's layers: when each document last
 * changed, for GuardedPage.settle (in-page/change-log.ts), and the run's one tab keeping what the
 * page's script opens in a window (in-page/open-in-tab.ts). One script, one round trip.
 */
export async function installTabScripts(context: BrowserContext): Promise<void> {
  await context.addInitScript({ content: `${CHANGE_LOG_SCRIPT}\n${OPEN_IN_TAB_SCRIPT}` });
}
