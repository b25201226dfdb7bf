import { BINDING_CALL, UNSEEN_PULL } from './page-script.ts';

// Support for layer 3, added to every realm of every frame (about:blank and srcdoc iframes and
// popups included: init scripts run there before the page's scripts, so no untouched constructor
// is left to reach). While automation is in control of the tab, the page may not open a way out
// that the network layer's interception does not see:
//
// - Workers, dedicated or shared. Playwright intercepts neither a shared worker's requests nor any
//   worker's WebSocket (its WebSocket routing is a shim in the page's own globals), and the
//   DevTools protocol cannot hold a WebSocket frame at all. Preparing each worker's globals over CDP
//   before its script runs is a race: Playwright's own session lets every new worker run at once
//   (tried: the worker's socket was open before a second session's command arrived).
// - WebRTC connections and WebTransport sessions: their traffic is not HTTP; nothing intercepts it.
// - Speculation rules: the browser prefetches and prerenders what they name from its own process,
//   outside the interception (and outside the DevTools Fetch, Network blocking and data-saver
//   controls: tried). A rule set the page adds (a <script type="speculationrules">, however it gets
//   in, in shadow roots too) is removed before the browser acts on it: a MutationObserver's
//   callback runs at the microtask checkpoint of the insertion, ahead of the browser's update of
//   its candidates (tried on every way in: createElement, document.write, a parsed fragment, a
//   shadow root, a changed type). Rule sets named by a Speculation-Rules response header are not
//   fetched (guard/index.ts).
//
// The constructors throw a SecurityError (an action_denied event each). In the tab the person
// controls they work; what the person's tab started is stopped when automation takes it back (the
// pull returns how many it stopped; shared workers are closed by guard/workers.ts), and its rule
// sets are removed then. The originals are kept only in this closure (each prototype's
// `constructor` points to the guarded one). Service workers are blocked by the context (BrowserPool).

/**
 * What a page may not start while automation is in control: the constructor, the method that stops
 * one the person's tab started (none: a shared worker, closed by guard/workers.ts), how the
 * action_denied event names it, and what of it would leave unseen.
 */
export const UNSEEN_KINDS = [
  { name: 'Worker', stop: 'terminate', what: 'a worker', leaving: "a worker's requests and WebSockets" },
  { name: 'SharedWorker', stop: null, what: 'a shared worker', leaving: "a worker's requests and WebSockets" },
  { name: 'RTCPeerConnection', stop: 'close', what: 'a WebRTC connection', leaving: 'its traffic' },
  { name: 'webkitRTCPeerConnection', stop: 'close', what: 'a WebRTC connection', leaving: 'its traffic' },
  { name: 'WebTransport', stop: 'close', what: 'a WebTransport session', leaving: 'its traffic' },
  // Not a constructor of its own: fetch() and new Request() with a ReadableStream body (below).
  { name: 'StreamUpload', stop: null, what: 'a request with a streamed body', leaving: 'its body (the browser shows no streamed body to the interception)' },
] as const;

/** The kind the page's report names (a worker if the name is not one: the report comes from the page). */
export function unseenKind(name: string): (typeof UNSEEN_KINDS)[number] {
  return UNSEEN_KINDS.find((kind) => kind.name === name) ?? UNSEEN_KINDS[0];
}

export const UNSEEN_SCRIPT = `(() => {
  if (window.__conciergeGuardUnseen) return;
  Object.defineProperty(window, '__conciergeGuardUnseen', { value: true });
  ${BINDING_CALL}
  // Until the executor answers, automation is in control: the safe side.
  let automation = true;
  // [object, its original stop method]: what the person's tab started.
  const started = [];
  const stopStarted = () => {
    let stopped = 0;
    for (const [made, stop] of started.splice(0)) { try { stop.call(made); stopped += 1; } catch (e) { /* gone already */ } }
    return stopped;
  };

  // Workers and connections.
  const KINDS = ${JSON.stringify(UNSEEN_KINDS.map((kind) => [kind.name, kind.stop, kind.what]))};
  const guarded = new Map();
  for (const [name, stopName, what] of KINDS) {
    const Original = window[name];
    if (typeof Original !== 'function') continue;
    // An alias (webkitRTCPeerConnection) gets the same guarded constructor.
    let Guarded = guarded.get(Original);
    if (!Guarded) {
      const stop = stopName ? Original.prototype[stopName] : null;
      Guarded = function (...args) {
        if (!new.target) return Original(...args); // the browser's own TypeError
        if (automation) {
          call('unseen', name);
          throw new DOMException('Starting ' + what + ' is refused while automation is in control of this tab', 'SecurityError');
        }
        const made = Reflect.construct(Original, args, new.target === Guarded ? Original : new.target);
        if (stop) started.push([made, stop]);
        call('unseen', name, 'started');
        return made;
      };
      Object.defineProperty(Guarded, 'name', { value: Original.name });
      Object.defineProperty(Guarded, 'prototype', { value: Original.prototype, writable: false, enumerable: false, configurable: false });
      Object.defineProperty(Original.prototype, 'constructor', { value: Guarded, writable: false, enumerable: false, configurable: false });
      guarded.set(Original, Guarded);
    }
    Object.defineProperty(window, name, { value: Guarded, writable: false, enumerable: false, configurable: false });
  }

  // Streamed request bodies. The browser shows the interception no body for a ReadableStream
  // upload, exactly as for an empty one: the network layer could only refuse both, and an empty
  // POST is how many single-page apps say "continue". So the stream is refused here, where it can
  // be told apart, and the network layer lets a body-less request through (guard/index.ts).
  const Stream = window.ReadableStream;
  const streamed = (init) => automation && init !== null && typeof init === 'object' && typeof Stream === 'function' && init.body instanceof Stream;
  const refuseStream = () => {
    call('unseen', 'StreamUpload');
    return new DOMException('Sending a streamed request body is refused while automation is in control of this tab', 'SecurityError');
  };
  const OriginalRequest = window.Request;
  if (typeof OriginalRequest === 'function') {
    const GuardedRequest = function (input, init) {
      if (!new.target) return OriginalRequest(input, init); // the browser's own TypeError
      if (streamed(init)) throw refuseStream();
      return Reflect.construct(OriginalRequest, [input, init], new.target === GuardedRequest ? OriginalRequest : new.target);
    };
    Object.defineProperty(GuardedRequest, 'name', { value: 'Request' });
    Object.defineProperty(GuardedRequest, 'prototype', { value: OriginalRequest.prototype, writable: false, enumerable: false, configurable: false });
    Object.defineProperty(OriginalRequest.prototype, 'constructor', { value: GuardedRequest, writable: false, enumerable: false, configurable: false });
    Object.defineProperty(window, 'Request', { value: GuardedRequest, writable: false, enumerable: false, configurable: false });
  }
  const originalFetch = window.fetch;
  if (typeof originalFetch === 'function') {
    const guardedFetch = function fetch(input, init) {
      if (streamed(init)) return Promise.reject(refuseStream());
      return originalFetch.call(this, input, init);
    };
    Object.defineProperty(window, 'fetch', { value: guardedFetch, writable: false, enumerable: true, configurable: false });
  }

  // Speculation rules.
  const remove = Element.prototype.remove;
  const getAttribute = Element.prototype.getAttribute;
  const querySelectorAll = Document.prototype.querySelectorAll;
  const fragmentQuery = DocumentFragment.prototype.querySelectorAll;
  const elementQuery = Element.prototype.querySelectorAll;
  // Held weakly: a page may make shadow roots without end, and a root gone from the page holds no rules.
  const roots = [new WeakRef(document)];
  const isRules = (node) => node && node.nodeType === 1 && node.localName === 'script' && String(getAttribute.call(node, 'type') || '').trim().toLowerCase() === 'speculationrules';
  const scriptsIn = (node) => (node.nodeType === 9 ? querySelectorAll : node.nodeType === 11 ? fragmentQuery : elementQuery).call(node, 'script');
  const drop = (nodes) => {
    let removed = 0;
    for (const node of nodes) if (isRules(node)) { remove.call(node); removed += 1; }
    if (removed) call('preload');
  };
  const sweep = (records) => {
    if (!automation) return;
    const found = [];
    for (const record of records) {
      found.push(record.target);
      for (const node of record.addedNodes) { found.push(node); if (node.nodeType === 1) found.push(...scriptsIn(node)); }
    }
    drop(found);
  };
  const observe = (root) => new MutationObserver(sweep).observe(root, { subtree: true, childList: true, attributes: true, attributeFilter: ['type'] });
  observe(document);
  const attachShadow = Element.prototype.attachShadow;
  Object.defineProperty(Element.prototype, 'attachShadow', {
    configurable: false, writable: false,
    value: function (init) { const root = attachShadow.call(this, init); roots.push(new WeakRef(root)); observe(root); return root; },
  });

  // Resolves to how many workers and connections it stopped (the executor checks that none is left).
  const pull = () => {
    const answer = call('mode');
    if (!answer || typeof answer.then !== 'function') return undefined;
    return answer.then((mode) => {
      automation = mode !== 'user';
      if (!automation) return 0;
      for (let i = roots.length - 1; i >= 0; i--) {
        const root = roots[i].deref();
        if (root) drop(Array.from(scriptsIn(root)));
        else roots.splice(i, 1);
      }
      return stopStarted();
    }, () => 0);
  };
  Object.defineProperty(window, ${JSON.stringify(UNSEEN_PULL)}, { value: pull, writable: false, configurable: false, enumerable: false });
  pull();
})();`;
