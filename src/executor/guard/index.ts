import type { BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import type { GuardEvents } from './events.ts';
import { BLOCKER_SCRIPT, GUARD_BINDING, GUARD_PULLS, LEARNER_SCRIPT, WORKER_SCRIPT } from './page-script.ts';
import { cardFieldInMessage, cardFieldInRequest } from './request-scan.ts';

// Installs layers 2 and 3 of the payment guard on a job's browser context (layer 1 is the page API
// drivers get, page-api.ts). Both layers stand aside for one tab, and only that tab, while the person
// is in control of it at the handoff; automation takes no action meanwhile.

export interface GuardOptions {
  /** Layer 2: the in-page script that blocks input into card-code fields. */
  inPage?: boolean;
  /** Layer 3: request and WebSocket interception. */
  network?: boolean;
}

export interface GuardControls {
  /** Who controls this tab: the person (handoff) or automation (the default). */
  setUserInControl(page: Page, userInControl: boolean): Promise<void>;
  isUserInControl(page: Page): boolean;
  /** Card-code field names the pages have shown so far (network layer). */
  learnedFields(): ReadonlySet<string>;
}

const MAX_LEARNED = 500;

function describe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return 'an unparseable URL';
  }
}

function pageOf(request: Request): Page | null {
  try {
    return request.frame().page();
  } catch {
    // Worker requests have no frame.
    return null;
  }
}

/**
 * A request that may carry a body the layer was not shown. The browser gives no body to read for a
 * ReadableStream upload, and gives none either for an empty body: the two cannot be told apart, so
 * a script's request with a body-carrying method and nothing to read is refused. A navigation (a
 * form submission) is built by the browser from the form's fields, always readable: nothing there
 * means an empty form.
 */
function unreadableBody(request: Request): boolean {
  const method = request.method();
  return method !== 'GET' && method !== 'HEAD' && !request.isNavigationRequest();
}

export async function installGuard(context: BrowserContext, events: GuardEvents, options: GuardOptions = {}): Promise<GuardControls> {
  const inPage = options.inPage ?? true;
  const network = options.network ?? true;
  const userPages = new WeakSet<Page>();
  let usersAnywhere = 0;
  const learned = new Set<string>();

  if (inPage || network) {
    await context.exposeBinding(GUARD_BINDING, (source, kind: unknown, ...args: unknown[]) => {
      if (kind === 'mode') return source.page && userPages.has(source.page) ? 'user' : 'automation';
      if (kind === 'learn' && Array.isArray(args[0])) {
        // Pages can call the binding too: what they add is bounded (and only ever blocks more).
        for (const name of args[0].slice(0, 50)) if (typeof name === 'string' && name.length <= 100 && learned.size < MAX_LEARNED) learned.add(name.toLowerCase());
        return undefined;
      }
      if (kind === 'worker' && network) {
        const what = args[0] === 'SharedWorker' ? 'a shared worker' : 'a worker';
        events.denied('network', `Payment guard (network layer) refused to let the page on ${describe(source.frame.url())} start ${what}: a worker's requests and WebSockets would leave outside the network layer's view while automation is in control.`);
        return undefined;
      }
      if (kind === 'deny' && inPage) {
        const how = typeof args[0] === 'string' ? args[0].replace(/[^a-z]/g, '').slice(0, 20) : 'input';
        const field = typeof args[1] === 'string' ? args[1].replace(/[^\w\-[\]. ]/g, '').slice(0, 60) : 'card field';
        events.denied('page', `Payment guard (in-page layer) blocked ${how === 'ticking' ? how : `${how} into`} the card security code field '${field}' on ${describe(source.frame.url())}.`);
      }
      return undefined;
    });
  }
  if (inPage) await context.addInitScript({ content: BLOCKER_SCRIPT });
  if (network) {
    await context.addInitScript({ content: LEARNER_SCRIPT });
    // What the routes below cannot see, workers, does not run while automation is in control (see WORKER_SCRIPT).
    await context.addInitScript({ content: WORKER_SCRIPT });
    await context.route('**/*', async (route: Route, request: Request) => {
      let why: string | null;
      try {
        const page = pageOf(request);
        if (page ? userPages.has(page) : usersAnywhere > 0) return await route.continue();
        const body = request.postDataBuffer();
        // The provisional headers (no await): allHeaders() can wait for browser events that never come.
        const field = cardFieldInRequest(request.url(), body, request.headers()['content-type'] ?? '', learned);
        why = field ? `it carried the card security code field '${field}'` : body === null && unreadableBody(request) ? 'its body could not be read, so it could carry a card security code' : null;
      } catch {
        // A request the layer cannot read is not let through (and a route left unanswered would hang its page).
        why = 'it could not be read';
      }
      try {
        if (!why) return await route.continue();
        events.denied('network', `Payment guard (network layer) blocked a ${request.method()} request to ${describe(request.url())}: ${why}.`);
        return await route.abort('blockedbyclient');
      } catch {
        // The page or context went away meanwhile.
      }
    });
    await context.routeWebSocket(() => true, (ws: WebSocketRoute) => {
      const server = ws.connectToServer();
      ws.onMessage((message) => {
        const field = usersAnywhere > 0 ? null : cardFieldInMessage(message, learned);
        if (!field) return server.send(message);
        events.denied('network', `Payment guard (network layer) dropped a WebSocket message to ${describe(ws.url())}: it carried the card security code field '${field}'.`);
      });
      server.onMessage((message) => ws.send(message));
      // Close codes such as 1006 cannot be sent on; the other side then closes with a plain close.
      ws.onClose((code, reason) => server.close({ code, reason }).catch(() => server.close().catch(() => {})));
      server.onClose((code, reason) => ws.close({ code, reason }).catch(() => ws.close().catch(() => {})));
    });
  }

  return {
    async setUserInControl(page, userInControl) {
      if (userInControl === userPages.has(page)) return;
      if (userInControl) {
        userPages.add(page);
        usersAnywhere += 1;
      } else {
        userPages.delete(page);
        usersAnywhere -= 1;
      }
      // Every document of the tab asks again; new documents ask on their own as they start.
      await Promise.all(page.frames().map((frame) => frame.evaluate((names) => Promise.all(names.map((name) => (window as unknown as Record<string, (() => unknown) | undefined>)[name]?.())), [...GUARD_PULLS]).catch(() => {})));
    },
    isUserInControl: (page) => userPages.has(page),
    learnedFields: () => learned,
  };
}
