import { setTimeout as sleep } from 'node:timers/promises';
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { timeLimit } from '../browser/time-limit.ts';
import { confirmAfterHoldEnded, transition } from '../jobs/transition.ts';
import { DomainError } from '../jobs/types.ts';
import type { Driver } from '../driver/types.ts';
import type { GuardControls } from './guard/index.ts';
import type { GuardEvents } from './guard/events.ts';
import type { GuardedPage } from './guard/page-api.ts';
import { cancelEnding, endingColumns, expiryEnding, lossEnding, type Canceller, type Ending, type EndingColumns } from './hold-endings.ts';
import { CONFIRMATION_GRACE_MS, FINISH_RETRY_MS, WRITE_WAIT_MS } from './hold-timings.ts';
import type { HoldRegistry } from './holds.ts';
import { InFlight, submissionOf } from './in-flight.ts';

// One held booking in the process that holds its tab (the registry, holds.ts, keeps them and speaks
// for them to other processes): the tab on the provider's payment page until the person pays, cancels,
// or the hold runs out.
//
// The handoff page (issue 6) uses a HeldSession: the Page for the live view (CDP screencast, input
// relay), expiresAt for the countdown, setUserInControl() before relaying the person's input,
// cancel(), and onEnd() to learn of the confirmation.
//
// A payment in flight. Once the person has had the tab, what it submits may be their payment (what
// counts: in-flight.ts): the provider may charge the card before it answers. Until the page it leads
// to has settled, nothing ends the hold on the assumption that nothing was paid: a cancel is refused
// ('payment_in_flight'), the expiry waits (up to MAX_POSTPONE_MS past the deadline), and either then
// looks for the provider's confirmation page first. A hold that ends without a confirmation after
// the person submitted something is worded as uncertain ("check with the provider"), never as
// "nothing was charged": only the provider knows.

export type HoldEnd =
  | { kind: 'completed'; confirmationCode: string }
  /** paymentUncertain: the person submitted a payment the provider did not confirm. */
  | { kind: 'expired'; paymentUncertain?: boolean }
  | { kind: 'cancelled'; paymentUncertain?: boolean }
  | { kind: 'lost'; reason: string; paymentUncertain?: boolean };

/** What a cancel did: ended the hold, found it ended already (paid, expired), or refused while a payment is in flight. */
export type CancelResult = 'cancelled' | 'ended' | 'payment_in_flight';

export interface HeldSession {
  readonly jobId: string;
  readonly providerId: string;
  readonly providerName: string;
  /** The provider's tab. Read and stream it; relay the person's input only with setUserInControl(true). */
  readonly page: Page;
  readonly expiresAt: Date;
  /** Resolves when the hold ends, however it ends. */
  readonly done: Promise<HoldEnd>;
  isEnded(): boolean;
  /** Hands the tab to the person (the payment guard's in-page and network layers stand aside for it) or back to automation. */
  setUserInControl(userInControl: boolean): Promise<void>;
  isUserInControl(): boolean;
  /** A submission from the tab (the person's Pay) is waiting for the provider's answer, or its page is still settling. */
  paymentInFlight(): boolean;
  /**
   * The person gives up: status error, reason cancelled_by_user (cancelled_by_client when `by` is
   * the API client). Refused while a payment is in flight; the provider's confirmation page, if the
   * tab shows one, completes the job instead.
   */
  cancel(by?: Canceller): Promise<CancelResult>;
  onEnd(listener: (end: HoldEnd) => void): () => void;
}

export interface HoldInput {
  jobId: string;
  driver: Driver;
  context: BrowserContext;
  page: Page;
  /** The attempt's guarded page over it (with the run's time limit): the session reads the tab through it. */
  reader: GuardedPage;
  guard: GuardControls;
  events: GuardEvents;
  expiresAt: Date;
  /** What is held (outcome.heldDescription), for the summaries written when the hold ends. */
  what: string;
  url: string;
}

export class Session implements HeldSession {
  readonly jobId: string;
  readonly providerId: string;
  readonly providerName: string;
  readonly page: Page;
  readonly expiresAt: Date;
  readonly done: Promise<HoldEnd>;
  readonly #input: HoldInput;
  readonly #registry: HoldRegistry;
  readonly #listeners = new Set<(end: HoldEnd) => void>();
  #resolve!: (end: HoldEnd) => void;
  #ended = false;
  #timer: NodeJS.Timeout | null = null;
  #reader: GuardedPage;
  /** The requests of a payment in flight from the tab, until their answers have settled. */
  readonly #payment: InFlight;
  /** The person has had the tab: from then on what it submits is theirs (before, automation's, which never pays). */
  #personHadControl = false;
  /** The person submitted a payment from the tab: an ending without the provider's confirmation is uncertain. */
  #submitted = false;
  /** Every new request of the tab is aborted (while a cancel or the expiry decides), see #block. */
  #blocked = false;
  /** The tab's own route (see #route), once installed. */
  #routed: Promise<void> = Promise.resolve();
  /** The expiry is waiting for a payment in flight to settle. */
  #postponing = false;
  /** Closing because the job ended in another process (waiting for a payment in flight first). */
  #closing = false;
  /** This hold's writes to its row, in order (a vouch must not land after the unvouch that follows it). */
  #writes: Promise<void> = Promise.resolve();

  constructor(registry: HoldRegistry, input: HoldInput) {
    this.#registry = registry;
    this.#input = input;
    this.jobId = input.jobId;
    this.providerId = input.driver.id;
    this.providerName = input.driver.name;
    this.page = input.page;
    this.expiresAt = input.expiresAt;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    this.#reader = input.reader;
    this.#payment = new InFlight({
      maxPendingMs: registry.maxPostponeMs,
      // Other processes must know at once: their sweeps and cancels read the row.
      started: () => this.#write(() => this.#registry.vouch(this.jobId)),
      // The page the payment led to: the provider's confirmation completes the job before anyone is told it settled.
      settling: () => this.#checkConfirmation(),
      settled: () => {
        if (!this.#ended && !this.#postponing) this.#write(() => this.#registry.unvouch(this.jobId));
      },
      gaveUp: (request) => this.#registry.log.info({ jobId: this.jobId, method: request.method() }, 'a request of the held tab went unanswered past the limit: no longer counted as a payment in flight'),
    });
  }

  start(): void {
    // While it waits, the held tab gives back what it can (caches, garbage): a third of its memory.
    void this.#input.context.newCDPSession(this.page).then(async (cdp) => {
      await cdp.send('Memory.simulatePressureNotification', { level: 'critical' });
      await cdp.detach();
    }).catch(() => {});
    const delay = Math.max(0, this.expiresAt.getTime() - Date.now());
    this.#timer = setTimeout(() => void this.#expire(), delay);
    this.#timer.unref();
    this.#routed = this.page.route('**/*', (route, request) => this.#route(route, request)).then(() => {}, () => {});
    // The provider's confirmation page, once the person has paid.
    this.page.on('domcontentloaded', () => void this.#checkConfirmation());
    this.page.on('request', (request) => this.#onRequest(request));
    this.page.on('requestfinished', (request) => this.#payment.answered(request));
    this.page.on('requestfailed', (request) => this.#payment.answered(request));
    this.page.on('close', () => void this.#lose('the provider tab was closed'));
    this.page.on('crash', () => void this.#lose('the provider tab crashed'));
  }

  isEnded(): boolean {
    return this.#ended;
  }

  async setUserInControl(userInControl: boolean): Promise<void> {
    if (this.#ended) return;
    if (userInControl) this.#personHadControl = true;
    await this.#input.guard.setUserInControl(this.page, userInControl);
  }

  isUserInControl(): boolean {
    return this.#input.guard.isUserInControl(this.page);
  }

  paymentInFlight(): boolean {
    return this.#payment.active;
  }

  /** Whether the holder vouches for the hold (hold_seen_at ahead): a payment is in flight, or the expiry waits for one. */
  vouching(): boolean {
    return !this.#ended && (this.#postponing || this.#payment.active);
  }

  async cancel(by: Canceller = 'person'): Promise<CancelResult> {
    if (this.#ended) return 'ended';
    // Nothing new leaves the tab while this decides; what left before is known (its request event came first).
    await this.#block();
    if (this.#ended) return 'ended';
    if (this.paymentInFlight()) {
      this.#unblock();
      return 'payment_in_flight';
    }
    // Paid a moment ago and the confirmation not read yet: the booking is done, not cancelled.
    await this.#checkConfirmation();
    if (this.#ended) return 'ended';
    await this.#finish({ kind: 'cancelled' }, cancelEnding(this.providerId, this.providerName, this.#input.what, this.#submitted, by));
    return 'cancelled';
  }

  onEnd(listener: (end: HoldEnd) => void): () => void {
    if (this.#ended) {
      void this.done.then(listener);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * The heartbeat's renewal of the vouch, queued behind this hold's own writes and made only if the
   * hold still vouches when its turn comes: written beside them, it could land after the unvouch of
   * a payment that settled meanwhile and refuse cancels elsewhere for VOUCH_SECONDS with nothing in flight.
   */
  renewVouch(): Promise<void> {
    this.#write(async () => {
      if (this.vouching()) await this.#registry.vouch(this.jobId);
    });
    return this.#writes;
  }

  /** Stops watching without touching the job (the hold never became one, or the registry drops it). */
  detach(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#payment.clear();
    this.#resolve({ kind: 'lost', reason: 'detached' });
  }

  /** Seen here before the request can reach the network (the guard intercepts every request, and Playwright reports it first). */
  #onRequest(request: Request): void {
    if (this.#ended) return;
    // A redirect's next hop is followed by the browser, block or not: the answer of what it follows.
    if (this.#payment.follows(request)) return this.#payment.add(request);
    if (!this.#personHadControl || this.#blocked) return;
    const submission = submissionOf(request, this.#input.guard.learnedFields());
    if (!submission) return;
    if (submission === 'payment' && !this.#submitted) {
      this.#submitted = true;
      this.#write(() => this.#registry.recordSubmission(this.jobId));
    }
    this.#payment.add(request);
  }

  /** One write to the row, after this hold's previous ones; a failed one is logged and the next goes on. */
  #write(write: () => Promise<void>): void {
    this.#writes = this.#writes.then(write).catch((error: unknown) => this.#registry.log.warn({ err: { message: (error as Error).message }, jobId: this.jobId }, 'could not record the state of a held payment'));
  }

  /**
   * Every request of the tab passes here before the guard's route (to which it falls back). While a
   * cancel or the expiry decides, it is aborted. A payment leaving waits until the row says so
   * (vouched for, submission recorded), at most WRITE_WAIT_MS: another process must not end the
   * hold as "nothing was charged" once the provider may have the payment.
   */
  async #route(route: Route, request: Request): Promise<void> {
    try {
      if (this.#blocked) return await route.abort('blockedbyclient');
      if (this.#payment.has(request)) await timeLimit(this.#writes, WRITE_WAIT_MS, () => undefined);
      await route.fallback();
    } catch {
      // The page or context went away meanwhile.
    }
  }

  /**
   * Aborts every new request of the tab: a Pay pressed while a cancel or the expiry is deciding
   * never reaches the provider. Once this resolves, any request that got out before is counted
   * (Playwright reports a request before it routes it).
   */
  async #block(): Promise<void> {
    await this.#routed;
    this.#blocked = true;
  }

  #unblock(): void {
    this.#blocked = false;
  }

  /**
   * Waits, until `until`, for a payment in flight to be answered. New requests flow while it waits
   * (the redirect or the script's navigation to the confirmation must get through); it returns with
   * the tab blocked, and nothing in flight or `until` passed.
   */
  async #settleBlocked(until: number, waiting?: () => Promise<void>): Promise<void> {
    for (;;) {
      if (this.#ended) return;
      await this.#block();
      if (this.#ended || !this.paymentInFlight() || Date.now() >= until) return;
      this.#unblock();
      await waiting?.();
      await this.#payment.untilSettled(until - Date.now());
    }
  }

  /** Releases the hold because this process cannot keep it (shutdown, browser gone), once a payment in flight has been answered or `waitMs` passed. */
  async lose(reason: string, waitMs = 0): Promise<void> {
    if (waitMs > 0) {
      await this.#settleBlocked(Date.now() + waitMs);
      await this.#checkConfirmation();
    }
    await this.#lose(reason);
  }

  /**
   * Another process ended the job (a cancel that reached it, its sweep): the tab must close so that
   * nobody pays for a booking that has ended. But a payment that left before may be answered yet:
   * the tab stays until it has been (up to the postponement limit; its follow-ups, such as a
   * script's navigation to the confirmation, get through), and a confirmation on it makes the job
   * completed after all. The person's live view closes as the ending reaches it (its watcher reads
   * the row), and with it their control: the guard covers the tab again.
   */
  async endedElsewhere(): Promise<void> {
    if (this.#ended || this.#closing) return;
    this.#closing = true;
    await this.lose('the job ended in another process', this.#registry.maxPostponeMs);
  }

  async #checkConfirmation(): Promise<void> {
    if (this.#ended) return;
    const code = await this.#input.driver.confirmation(this.#reader).catch(() => null);
    if (!code) return;
    await this.#finish({ kind: 'completed', confirmationCode: code }, {
      to: 'completed',
      event: { type: 'job_completed', providerId: this.providerId, message: `The person paid at ${this.providerName}; the booking is confirmed with code ${code}.`, data: { confirmationCode: code } },
      confirmationCode: code,
      summary: `Booked and paid at ${this.providerName}: ${this.#input.what}. Confirmation ${code}.`,
    }, CONFIRMATION_GRACE_MS);
  }

  async #expire(): Promise<void> {
    // The person pressed Pay and the provider has not answered: the card may be charged as we
    // speak. The hold waits for the answer, and so do other processes' sweeps (vouched for).
    await this.#settleBlocked(this.expiresAt.getTime() + this.#registry.maxPostponeMs, async () => {
      if (this.#postponing) return;
      this.#postponing = true;
      this.#registry.log.info({ jobId: this.jobId }, 'hold deadline reached with a payment in flight: waiting for the provider\'s answer');
      this.#write(() => this.#registry.vouch(this.jobId));
    });
    if (this.#ended) return;
    await this.#checkConfirmation();
    if (this.#ended) return;
    // Submitted and not confirmed (or still unanswered after the wait): only the provider knows.
    await this.#finish({ kind: 'expired' }, expiryEnding(this.providerId, this.providerName, this.#input.what, this.#submitted || this.paymentInFlight()));
  }

  async #lose(reason: string): Promise<void> {
    await this.#finish({ kind: 'lost', reason }, lossEnding(this.providerId, this.providerName, reason, this.#input.what, this.#submitted || this.paymentInFlight()));
  }

  /** Records the ending; its listeners learn `end`, uncertain when the recorded ending is. */
  async #finish(end: HoldEnd, change: Ending, closeAfterMs = 0): Promise<void> {
    if (this.#ended) return;
    if (change.error?.paymentUncertain && end.kind !== 'completed') end = { ...end, paymentUncertain: true };
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#payment.clear();
    const set = endingColumns(change, this.providerId, this.#input.url);
    // Nothing leaves a tab whose booking has ended (while its end is written, possibly again).
    if (change.to === 'error') await this.#block();
    const record = async () => {
      try {
        await transition(this.#registry.db, this.jobId, { to: change.to, from: ['paused_payment'], event: change.event, set });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        // Another process ended the job without seeing this tab (a cancel or a sweep it could not
        // check against the payment here): the provider has confirmed, so the booking is made.
        if (change.to === 'completed') await this.#confirmOverOtherEnding(change, set);
        // Otherwise someone else settled it first (another process's sweep): the hold is over all the same.
      }
    };
    // A write lost to a database failure would leave the job paused until a sweep releases it as
    // lost: a paid booking recorded as an error. The session stays registered (its heartbeat keeps
    // the row alive) and the write is tried again until it lands, or the service stops.
    for (let attempt = 0; ; attempt++) {
      try {
        await record();
        break;
      } catch (error) {
        const wait = FINISH_RETRY_MS[attempt];
        const retry = wait !== undefined && !this.#registry.stopping;
        this.#registry.log[retry ? 'warn' : 'error']({ err: { message: (error as Error).message }, jobId: this.jobId, ending: change.to }, retry ? 'could not record the end of a hold: trying again' : 'could not record the end of a hold');
        if (!retry) break;
        // Unref'd: a retry asleep when the service stops must not keep the process up for it.
        await sleep(wait, undefined, { ref: false });
      }
    }
    this.#resolve(end);
    for (const listener of this.#listeners) {
      try {
        listener(end);
      } catch {
        // A listener's failure is its own.
      }
    }
    this.#registry.forget(this.jobId);
    const close = () => this.#input.context.close().catch(() => {});
    if (closeAfterMs > 0) setTimeout(() => void close(), closeAfterMs).unref();
    else await close();
  }

  async #confirmOverOtherEnding(change: Ending, set: EndingColumns): Promise<void> {
    const overridden = await confirmAfterHoldEnded(this.#registry.db, this.jobId, (previous) => ({
      event: { ...change.event, message: `${change.event.message} It had been recorded as ended (${previous}) by a process that could not see the payment; the provider's confirmation stands.`, data: { ...change.event.data, overrides: previous } },
      set,
    }));
    if (overridden) this.#registry.log.warn({ jobId: this.jobId, confirmationCode: change.confirmationCode }, 'a held booking ended elsewhere was confirmed by the provider: recorded as completed');
  }
}
