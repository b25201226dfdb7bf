import type { BrowserContext, Page } from 'playwright-core';
import { liveViewOf } from './live-view.ts';

// Which tab each running job is driving in this process, for the read-only live view (`sessionUrl`).
// A job's run works in one browser context; its tab is the newest page still open in it (a retry or
// a fallback to the next provider opens a new one). A run that pauses at the card step lets go of
// its context: the tab then belongs to the person paying, and is nobody's to watch.

const contexts = new Map<string, BrowserContext>();

/** Called by the run when it opens its context; forgotten when the context closes. */
export function trackRunningContext(jobId: string, context: BrowserContext): void {
  contexts.set(jobId, context);
  context.once('close', () => {
    if (contexts.get(jobId) === context) contexts.delete(jobId);
  });
}

export function runningTab(jobId: string): Page | null {
  const pages = contexts.get(jobId)?.pages().filter((p) => !p.isClosed()) ?? [];
  return pages.at(-1) ?? null;
}

/**
 * The run paused and its tab is a held session now: it stops being the running tab, and whoever
 * watched it read-only stops receiving its frames at once, before the person can type into it.
 */
export function releaseRunningContext(jobId: string): void {
  const context = contexts.get(jobId);
  if (!context) return;
  contexts.delete(jobId);
  for (const page of context.pages()) liveViewOf(page).endWatching();
}
