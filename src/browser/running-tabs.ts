import type { BrowserContext, Page } from 'playwright-core';

// Which tab each running job is driving in this process, for the read-only live view (`sessionUrl`).
// A job's run works in one browser context; its tab is the newest page still open in it (a retry or
// a fallback to the next provider opens a new one).

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
