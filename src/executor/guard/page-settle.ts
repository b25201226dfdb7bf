import type { Page, Request } from 'playwright-core';

// When a page has settled after a press or a navigation (GuardedPage.settle): its requests that
// matter answered (watchNetwork) and its DOM quiet for a moment (domQuiet, run in the page).

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

/** In the page, read-only: resolves once the document is parsed and no mutation happened for `quiet` ms (or after `cap` ms). */
export function domQuiet([quiet, cap]: readonly [number, number]): Promise<void> {
  return new Promise((resolve) => {
    const start = performance.now();
    let last = start;
    const observer = new MutationObserver(() => {
      last = performance.now();
    });
    observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
    const tick = () => {
      const now = performance.now();
      if ((document.readyState !== 'loading' && now - last >= quiet) || now - start >= cap) {
        observer.disconnect();
        resolve();
      } else setTimeout(tick, Math.max(10, quiet - (now - last)));
    };
    setTimeout(tick, quiet);
  });
}

export interface NetworkWatch {
  /** Document, script, fetch and XHR requests under way. */
  readonly inFlight: number;
  /** Main-frame documents received so far, and the status of the last one. */
  readonly documents: number;
  /** Document, script, fetch and XHR requests started so far. */
  readonly started: number;
  readonly status: number | null;
  idle(maxMs: number): Promise<void>;
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
  const state = { documents: 0, started: 0, status: null as number | null };
  const release = () => {
    if (pending.size > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  const done = (request: Request) => {
    if (pending.delete(request)) release();
  };
  page.on('request', (request) => {
    if (!WATCHED.has(request.resourceType())) return;
    pending.set(request, Date.now());
    state.started++;
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
