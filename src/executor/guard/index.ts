import type { BrowserContext, Page, Request, Route, WebSocketRoute } from 'playwright-core';
import { describeUrl, type GuardEvents } from './events.ts';
import { BLOCKER_SCRIPT, GUARD_BINDING, GUARD_PULLS, LEARNER_SCRIPT } from './page-script.ts';
import { cardFieldInMessage, cardFieldInRequest } from './request-scan.ts';
import { HeaderRuleSets } from './rule-sets.ts';
import { UNSEEN_SCRIPT, unseenKind } from './unseen-script.ts';
import { installTabScripts } from './tab-scripts.ts';
import { takeTabBack } from './workers.ts';

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

/** What the page tried to start, as the guard's messages name it. */
function pageOf(request: Request): Page | null {
  try {
    return request.frame().page();
  } catch {
    // Worker requests have no frame.
    return null;
  }
}

/** Why the network layer blocks this request, or null. */
function refusal(request: Request, learned: ReadonlySet<string>): string | null {
  const body = request.postDataBuffer();
  // The provisional headers (no await): allHeaders() can wait for browser events that never come.
  const field = cardFieldInRequest(request.url(), body, request.headers()['content-type'] ?? '', learned);
  // A request with no body to read is let through: the browser shows none for an empty body and
  // none for a ReadableStream upload alike, and streamed bodies are refused in every page realm
  // while automation is in control (unseen-script.ts), where the two can be told apart.
  return field ? `it carried the card security code field '${field}'` : null;
}

export async function installGuard(context: BrowserContext, events: GuardEvents, options: GuardOptions = {}): Promise<GuardControls> {
  const inPage = options.inPage ?? true;
  const network = options.network ?? true;
  const userPages = new WeakSet<Page>();
  let usersAnywhere = 0;
  const learned = new Set<string>();
  /** Workers and connections the pages of a tab started while the person had it. */
  const startedUnderPerson = new WeakMap<Page, number>();
  const ruleSets = new HeaderRuleSets((page) => !userPages.has(page));

  if (inPage || network) {
    await context.exposeBinding(GUARD_BINDING, (source, kind: unknown, ...args: unknown[]) => {
      if (kind === 'mode') return source.page && userPages.has(source.page) ? 'user' : 'automation';
      if (kind === 'learn' && Array.isArray(args[0])) {
        // Pages can call the binding too: what they add is bounded (and only ever blocks more).
        for (const name of args[0].slice(0, 50)) if (typeof name === 'string' && name.length <= 100 && learned.size < MAX_LEARNED) learned.add(name.toLowerCase());
        return undefined;
      }
      if (kind === 'unseen' && network) {
        if (args[1] === 'started') {
          // In the person's tab: counted, so that automation does not take the tab back with it running.
          if (source.page) startedUnderPerson.set(source.page, (startedUnderPerson.get(source.page) ?? 0) + 1);
          return undefined;
        }
        const unseen = unseenKind(String(args[0]));
        events.denied('network', `Payment guard (network layer) refused to let the page on ${describeUrl(source.frame.url())} start ${unseen.what}: ${unseen.leaving} would leave outside the network layer's view while automation is in control.`);
        return undefined;
      }
      if (kind === 'preload' && network) {
        events.denied('network', `Payment guard (network layer) removed speculation rules from the page on ${describeUrl(source.frame.url())}: the browser fetches what they name outside the network layer's view.`);
        return undefined;
      }
      if (kind === 'deny' && inPage) {
        const how = typeof args[0] === 'string' ? args[0].replace(/[^a-z]/g, '').slice(0, 20) : 'input';
        const field = typeof args[1] === 'string' ? args[1].replace(/[^\w\-[\]. ]/g, '').slice(0, 60) : 'card field';
        events.denied('page', `Payment guard (in-page layer) blocked ${how === 'ticking' ? how : `${how} into`} the card security code field '${field}' on ${describeUrl(source.frame.url())}.`);
      }
      return undefined;
    });
  }
  // Not guard layers, but every guarded context's: the change log and the one tab (tab-scripts.ts).
  await installTabScripts(context);
  if (inPage) await context.addInitScript({ content: BLOCKER_SCRIPT });
  if (network) {
    await context.addInitScript({ content: LEARNER_SCRIPT });
    // What the routes below cannot see (workers, WebRTC, speculation rules) does not run while automation is in control.
    await context.addInitScript({ content: UNSEEN_SCRIPT });
    context.on('response', (response) => ruleSets.note(response));
    await context.route('**/*', async (route: Route, request: Request) => {
      let why: string | null;
      try {
        const page = pageOf(request);
        if (page ? userPages.has(page) : usersAnywhere > 0) return await route.continue();
        why = ruleSets.named(request.url()) ? 'it fetched speculation rules, and the browser fetches what they name outside the network layer\'s view' : refusal(request, learned);
      } catch {
        // A request the layer cannot read is not let through (and a route left unanswered would hang its page).
        why = 'it could not be read';
      }
      try {
        if (!why) return await route.continue();
        events.denied('network', `Payment guard (network layer) blocked a ${request.method()} request to ${describeUrl(request.url())}: ${why}.`);
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
        events.denied('network', `Payment guard (network layer) dropped a WebSocket message to ${describeUrl(ws.url())}: it carried the card security code field '${field}'.`);
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
      // Every document of the tab asks again; new documents ask on their own as they start. Each
      // answer counts the workers its document stopped (automation back: see takeTabBack).
      const pulls = Promise.all(page.frames().map((frame) => frame
        .evaluate((names) => Promise.all(names.map((name) => (window as unknown as Record<string, (() => unknown) | undefined>)[name]?.())), [...GUARD_PULLS])
        .then((answers) => answers.reduce<number>((n, a) => n + (typeof a === 'number' ? a : 0), 0), () => 0)));
      if (!userInControl && network) {
        const started = startedUnderPerson.get(page) ?? 0;
        startedUnderPerson.delete(page);
        return takeTabBack(page, pulls, started, events);
      }
      await pulls;
    },
    isUserInControl: (page) => userPages.has(page),
    learnedFields: () => learned,
  };
}
