import type { Page } from 'playwright-core';
import { closeTab } from '../../browser/close-tab.ts';
import { timeLimit } from '../../browser/time-limit.ts';
import { describeUrl, type GuardEvents } from './events.ts';

// Support for layer 3 when automation takes a tab back from the person (the handoff's screen in
// control left). While the person had the tab its pages could start workers, and a worker keeps
// running after that: its traffic is outside the network layer's view (Playwright routes neither
// a shared worker's requests nor any worker's WebSocket), so one still holding a code the person
// typed could send it under automation (so could a WebRTC connection: UNSEEN_SCRIPT). The simplest
// safe rule: a tab is back under automation only without them. Dedicated workers and connections
// are stopped by the page script that started them (UNSEEN_SCRIPT's pull), shared workers are closed
// by the browser; and if one may still be running after that (a page that does not answer), the
// tab is closed: the hold then ends as lost.

/** How long the tab's documents have to hear that automation is back (and stop their workers). */
const PULL_MS = 2_000;
/** How long stopped dedicated workers have to be gone. */
const GONE_MS = 2_000;

/**
 * Runs once the guard has marked the tab as automation's. `pulls`: every frame's answer to "ask
 * again who is in control", each resolving to how many dedicated workers it stopped.
 */
export async function takeTabBack(page: Page, pulls: Promise<number[]>, startedUnderPerson: number, events: GuardEvents): Promise<void> {
  const where = describeUrl(page.url());
  const answered = await within(pulls, PULL_MS);
  // A document answers late when its thread frees up; until then it may still start a worker as the
  // person's (the answer then stops a dedicated one, but not a shared one): close those again then.
  if (!answered) void pulls.then(() => closeSharedWorkers(page)).catch(() => {});
  // The browser ends a shared worker's network at once; the call itself waits for its renderer,
  // which a spinning page never frees.
  const shared = await within(closeSharedWorkers(page), GONE_MS).catch(() => null);
  // Only the page can close its WebRTC connections and WebTransport sessions: a page that started
  // any and did not answer cannot be taken back.
  if (!answered && startedUnderPerson > 0) return closeTheTab(page, where, events);
  const dedicated = answered ? answered.reduce((a, b) => a + b, 0) : 0;
  if (shared === null || !(await dedicatedWorkersGone(page))) return closeTheTab(page, where, events);
  const stopped = dedicated + shared;
  if (stopped > 0) events.denied('network', `Payment guard (network layer) stopped ${stopped} worker${stopped === 1 ? '' : 's'} or connection${stopped === 1 ? '' : 's'} that the page on ${where} started while the person was in control: their traffic would leave outside the network layer's view now that automation is.`);
}

async function closeTheTab(page: Page, where: string, events: GuardEvents): Promise<void> {
  events.denied('network', `Payment guard (network layer) closed the tab: the page on ${where} did not let the workers or connections it started while the person was in control be stopped, and their traffic would leave outside the network layer's view.`);
  await closeTab(page);
}

/** Closes every shared worker of the page's browser context (the browser ends them; the page has no say). Returns how many. */
async function closeSharedWorkers(page: Page): Promise<number> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { targetInfo: self } = await cdp.send('Target.getTargetInfo');
    const { targetInfos } = await cdp.send('Target.getTargets');
    const shared = targetInfos.filter((t) => t.type === 'shared_worker' && t.browserContextId === self.browserContextId);
    await Promise.all(shared.map((t) => cdp.send('Target.closeTarget', { targetId: t.targetId })));
    return shared.length;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** `work`'s result, or null when it takes longer than `ms`. */
function within<T>(work: Promise<T>, ms: number): Promise<T | null> {
  return timeLimit(work, ms, () => null);
}

async function dedicatedWorkersGone(page: Page): Promise<boolean> {
  const end = Date.now() + GONE_MS;
  while (page.workers().length > 0) {
    if (Date.now() >= end) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}
