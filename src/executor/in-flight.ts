import type { Request } from 'playwright-core';
import { cardFieldInRequest } from './guard/request-scan.ts';

// What counts as the person's payment in flight on a held tab (see holds.ts), and the bookkeeping
// of it. Between the person's Pay and the provider's answer the card may be charged; nothing may
// end the hold as "nothing was charged" meanwhile. Real sites pay in many ways, so the rule is wide:
//
// - a request carrying a card-code field (by the guard's classifier, the names the pages showed
//   included), whatever its method or frame: a GET form, a card partner's iframe, a script;
// - any other request with a body-carrying method (a form POST, a script's fetch or XHR: the
//   merchant's charge call after a card partner tokenised the card carries no code);
// - a navigation of any frame (the page the Pay leads to, a card partner's or 3-D Secure frame);
// - the next hop of a redirect of any of these (a fetch POST answered 303 → GET: the GET's answer
//   is the payment's).
//
// Not counted: beacons that carry no code (analytics: `sendBeacon` is fire-and-forget, the page
// never reads its answer; a payment's outcome shows in the navigation that follows, which counts),
// and plain sub-resources (images, scripts, styles). A request still unanswered after the
// postponement limit (a long-poll, a stream, a provider that hung) stops counting then: it would
// otherwise hold Cancel off forever. Counting stays on the safe side: a payment-shaped request
// that was not a payment only delays a cancel, and words its outcome as "check with the provider".

/** A payment's answer has settled once none of its requests has been pending for this long (a redirect's next hop, a script's navigation after a fetch). */
const SETTLE_MS = 500;

export type Submission =
  /** May have paid (the person's code or a body left): an ending without a confirmation is uncertain. */
  | 'payment'
  /** Leads to a page that may be the confirmation: waited for, but pays nothing by itself. */
  | 'navigation';

/** What a request of the tab is, once the person has had it; null when it cannot be a payment. */
export function submissionOf(request: Request, learned: ReadonlySet<string>): Submission | null {
  let carriesCode = false;
  try {
    carriesCode = cardFieldInRequest(request.url(), request.postDataBuffer(), request.headers()['content-type'] ?? '', learned) !== null;
  } catch {
    // Unreadable: judged by its shape below.
  }
  if (carriesCode) return 'payment';
  const type = request.resourceType();
  if (type === 'ping') return null;
  const method = request.method();
  if (method !== 'GET' && method !== 'HEAD') return 'payment';
  let navigation = false;
  try {
    navigation = request.isNavigationRequest();
  } catch {
    // A worker's request: not a navigation.
  }
  return navigation ? 'navigation' : null;
}

export interface InFlightOptions {
  /** A request pending this long stops counting (a long-poll, a hung provider). */
  maxPendingMs: number;
  /** A payment went in flight (nothing was before). */
  started(): void;
  /** Its answers have settled (nothing pending for SETTLE_MS): the page they led to is looked at before anyone is told. */
  settling(): Promise<void>;
  /** Nothing is in flight any more (not called when clear() ends it). */
  settled(): void;
  /** A request was given up on: pending past maxPendingMs. */
  gaveUp(request: Request): void;
}

/** The requests of a payment in flight on one tab, until their answers have settled. */
export class InFlight {
  readonly #options: InFlightOptions;
  /** Pending requests, each with the timer that gives up on it. */
  readonly #pending = new Map<Request, NodeJS.Timeout>();
  /** Every request ever counted: a redirect's next hop of one is counted too. */
  readonly #counted = new WeakSet<Request>();
  /** Runs SETTLE_MS after the last pending one was answered; in flight until then. */
  #settleTimer: NodeJS.Timeout | null = null;
  readonly #waiters = new Set<() => void>();

  constructor(options: InFlightOptions) {
    this.#options = options;
  }

  get active(): boolean {
    return this.#pending.size > 0 || this.#settleTimer !== null;
  }

  /** Whether this request is pending as part of the payment. */
  has(request: Request): boolean {
    return this.#pending.has(request);
  }

  /** A request that followed (redirected from) one counted. */
  follows(request: Request): boolean {
    const from = request.redirectedFrom();
    return from !== null && this.#counted.has(from);
  }

  add(request: Request): void {
    if (this.#pending.has(request)) return;
    const wasActive = this.active;
    this.#counted.add(request);
    const giveUp = setTimeout(() => {
      this.#options.gaveUp(request);
      this.answered(request);
    }, this.#options.maxPendingMs);
    giveUp.unref();
    this.#pending.set(request, giveUp);
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = null;
    if (!wasActive) this.#options.started();
  }

  answered(request: Request): void {
    const giveUp = this.#pending.get(request);
    if (giveUp === undefined) return;
    clearTimeout(giveUp);
    this.#pending.delete(request);
    if (this.#pending.size > 0) return;
    // A redirect answers one request and starts the next a moment later: settled only when quiet.
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    const timer: NodeJS.Timeout = setTimeout(() => void this.#settle(timer), SETTLE_MS);
    timer.unref();
    this.#settleTimer = timer;
  }

  async #settle(timer: NodeJS.Timeout): Promise<void> {
    // A request that started meanwhile (add() drops the timer) or a newer answer owns the settling now.
    if (this.#settleTimer !== timer) return;
    await this.#options.settling();
    if (this.#settleTimer !== timer) return;
    this.#settleTimer = null;
    this.#options.settled();
    this.#wake();
  }

  /** Forgets everything (the hold ended); waiters are woken. */
  clear(): void {
    for (const giveUp of this.#pending.values()) clearTimeout(giveUp);
    this.#pending.clear();
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = null;
    this.#wake();
  }

  /** Resolves once nothing is in flight, or after `ms`. */
  untilSettled(ms: number): Promise<void> {
    if (!this.active) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      timer.unref();
      this.#waiters.add(done);
    });
  }

  #wake(): void {
    for (const wake of [...this.#waiters]) wake();
    this.#waiters.clear();
  }
}
