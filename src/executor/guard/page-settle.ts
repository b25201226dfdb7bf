import type { JSHandle, Page, Request } from 'playwright-core';
import { timeLimit } from '../../browser/time-limit.ts';
import type { PressQuiet, PressWatch } from './in-page/arm-press.ts';

// When a page has settled after a press or a navigation (GuardedPage.settle): its requests that
// matter answered (watchNetwork) and its DOM quiet for a moment (in-page/quiet.ts, reading the change
// log every frame keeps, in-page/change-log.ts; a press's own watch, in-page/arm-press.ts).

/** How long the DOM must stay unchanged to count as settled, and how long a busy DOM is waited for. */
export const DOM_QUIET_MS = 60;
/**
 * After a press the page has already reacted to (its DOM changed once the press began), how long it
 * must then stay unchanged: two frames at 60 Hz, time for a render scheduled by the first one. A
 * press that fetched or loaded anything is settled as any page is (network idle, then DOM_QUIET_MS).
 */
export const REACTED_QUIET_MS = 30;
export const DOM_QUIET_CAP_MS = 3_000;
/** A request that never ends (a long poll) does not hold the page's settling beyond this. */
export const NETWORK_IDLE_CAP_MS = 5_000;

export interface NetworkWatch {
  /** Document, script, fetch and XHR requests under way. */
  readonly inFlight: number;
  /** Main-frame documents received so far, and the status of the last one. */
  readonly documents: number;
  /** Document, script, fetch and XHR requests started so far. */
  readonly started: number;
  readonly status: number | null;
  /** When (Date.now()) a watched request last started, or a fetch or XHR request ended. */
  readonly lastActivityAt: number;
  /** Main-frame navigation requests started so far. */
  readonly navigations: number;
  idle(maxMs: number): Promise<void>;
  /** Resolves once more than `count` main-frame navigation requests have started, or after `maxMs`. */
  navigationAfter(count: number, maxMs: number): Promise<void>;
}

const WATCHED = new Set(['document', 'script', 'fetch', 'xhr']);

/**
 * Counts the page's requests in flight, so that settling waits for a single-page app's fetches. A
 * request still open after NETWORK_IDLE_CAP_MS (a long poll, a chat socket's fallback, a stream)
 * is background: it stops counting, or every later settle would wait out the whole time limit.
 */
export function watchNetwork(page: Page): NetworkWatch {
  const pending = new Map<Request, number>();
  let waiters: Array<() => void> = [];
  const state = { documents: 0, started: 0, navigations: 0, status: null as number | null, lastActivityAt: 0 };
  let navigationWaiters: Array<() => void> = [];
  const release = () => {
    if (pending.size > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  const done = (request: Request) => {
    if (!pending.delete(request)) return;
    // A fetch's answer is rendered by the page's script some moments after it arrives: the page is
    // given its quiet from then. A document or script acts as it arrives (its start is a change of
    // the page already; a script runs when loaded), and the end of its transfer is no reason to wait.
    if (request.resourceType() === 'fetch' || request.resourceType() === 'xhr') state.lastActivityAt = Date.now();
    release();
  };
  page.on('request', (request) => {
    if (!WATCHED.has(request.resourceType())) return;
    pending.set(request, Date.now());
    state.started++;
    state.lastActivityAt = Date.now();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      state.navigations++;
      const ready = navigationWaiters;
      navigationWaiters = [];
      for (const w of ready) w();
    }
  });
  page.on('requestfinished', done);
  page.on('requestfailed', done);
  page.on('response', (response) => {
    const request = response.request();
    if (request.isNavigationRequest() && request.frame() === page.mainFrame()) {
      state.documents++;
      state.status = response.status();
    }
  });
  page.on('framenavigated', (frame) => {
    // Requests of a document that went away never finish.
    if (frame !== page.mainFrame()) return;
    for (const r of pending.keys()) if (r.resourceType() !== 'document') pending.delete(r);
    release();
  });
  const dropBackground = () => {
    const before = Date.now() - NETWORK_IDLE_CAP_MS;
    for (const [r, started] of pending) if (started <= before && r.resourceType() !== 'document') pending.delete(r);
  };
  return {
    get inFlight() {
      return pending.size;
    },
    get documents() {
      return state.documents;
    },
    get started() {
      return state.started;
    },
    get status() {
      return state.status;
    },
    get lastActivityAt() {
      return state.lastActivityAt;
    },
    get navigations() {
      return state.navigations;
    },
    navigationAfter(count, maxMs) {
      if (state.navigations > count) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(finish, maxMs);
        function finish() {
          clearTimeout(timer);
          resolve();
        }
        navigationWaiters.push(finish);
      });
    },
    idle(maxMs) {
      dropBackground();
      if (pending.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          dropBackground();
          finish();
        }, maxMs);
        function finish() {
          clearTimeout(timer);
          resolve();
        }
        waiters.push(finish);
      });
    },
  };
}

/** How quiet a page must be after a press or a navigation (in-page/arm-press.ts, in-page/quiet.ts). */
export const SETTLE_QUIET: PressQuiet = { quietMs: DOM_QUIET_MS, reactedQuietMs: REACTED_QUIET_MS, capMs: DOM_QUIET_CAP_MS };

/**
 * Settles the page after a press that fetched something, with the press's own watch (its
 * MutationObserver has seen every change since before the click): the requests answered, then the
 * page quiet counted from when they last came or went: REACTED_QUIET_MS after a change since then
 * (the answer shown), DOM_QUIET_MS when nothing has changed since (the answer may still be on its
 * way in). Asked again when a request started meanwhile. False when it cannot tell (the document
 * went away, the watch no longer answers): the caller settles as after anything else.
 */
export async function settleAfterPress(watch: JSHandle<PressWatch>, network: NetworkWatch, documents: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = deadline - Date.now();
    if (left <= 0) return true;
    await network.idle(Math.min(left, NETWORK_IDLE_CAP_MS));
    if (network.documents !== documents) return false;
    const started = network.started;
    const quiet = { ...SETTLE_QUIET, sinceMs: Date.now() - network.lastActivityAt };
    // Late: a page that never settles is taken as it is at the limit, as settle() takes it.
    const answer = await timeLimit(watch.evaluate((w, q) => w.settled(q), quiet), Math.max(0, deadline - Date.now()), () => true).catch(() => false);
    if (!answer) return false;
    if (network.inFlight === 0 && network.started === started && network.documents === documents) return true;
  }
}
