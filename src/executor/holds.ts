import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { releaseRunningContext } from '../browser/running-tabs.ts';
import type { DB } from '../db/schema.ts';
import type { NewAuditEvent } from '../jobs/audit.ts';
import { TERMINAL_STATUSES, transition } from '../jobs/transition.ts';
import { DomainError, type JobStatus } from '../jobs/types.ts';
import type { Driver, ProviderId } from '../providers/types.ts';
import type { GuardControls } from './guard/index.ts';
import { GuardedPage } from './guard/page-api.ts';
import type { GuardEvents } from './guard/events.ts';

// Held sessions. A job paused at the card-code step keeps its browser context open on the provider's
// payment page, in the process that ran it, until the person pays (the provider's confirmation page
// is detected: completed), cancels, or the hold runs out (error, handoff_expired). Each process tells
// the database it still holds its sessions (hold_seen_at, every few seconds); a paused job whose holder
// stopped saying so (the process died) is released by any other process (error, hold_lost). A job
// another process settled meanwhile (a cancel that arrived there) has its tab here closed at the
// next heartbeat.
//
// The handoff page (issue 6) uses a HeldSession: the Page for the live view (CDP screencast, input
// relay), expiresAt for the countdown, setUserInControl() before relaying the person's input,
// cancel(), and onEnd() to learn of the confirmation.
//
// A payment in flight. Once the person has had the tab, a form POST (or any navigation) from it may
// be their payment: the provider may charge the card before it answers. Until the page it leads to
// has settled, nothing ends the hold on the assumption that nothing was paid: a cancel is refused
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
  readonly providerId: ProviderId;
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
   * The person gives up: status error, reason cancelled_by_user. Refused while a payment is in
   * flight; the provider's confirmation page, if the tab shows one, completes the job instead.
   */
  cancel(): Promise<CancelResult>;
  onEnd(listener: (end: HoldEnd) => void): () => void;
}

export const HEARTBEAT_MS = 5_000;
const SWEEP_MS = 10_000;
/** A holder silent for this long is presumed gone. */
const STALE_SECONDS = 20;
/** The confirmation page stays on screen this long for the live view before the context closes. */
const CONFIRMATION_GRACE_MS = 5_000;
/** A submission's answer has settled once no request of it has been pending for this long (a redirect's next hop, a script's navigation after a fetch). */
const SETTLE_MS = 500;
/** How long past its deadline a hold waits for a payment in flight before ending as uncertain. */
export const MAX_POSTPONE_MS = 60_000;
/** While it postpones, the holder vouches for the hold this far ahead (hold_seen_at in the future), so no other process's sweep expires it. */
const VOUCH_SECONDS = 15;

export interface HoldInput {
  jobId: string;
  driver: Driver;
  context: BrowserContext;
  page: Page;
  guard: GuardControls;
  events: GuardEvents;
  expiresAt: Date;
  /** What is held (outcome.heldDescription), for the summaries written when the hold ends. */
  what: string;
  url: string;
}

class Session implements HeldSession {
  readonly jobId: string;
  readonly providerId: ProviderId;
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
  /** Requests of a submission from the tab that have not been answered yet. */
  readonly #inFlight = new Set<Request>();
  /** Runs SETTLE_MS after the last of them was answered; a submission is in flight until then. */
  #settleTimer: NodeJS.Timeout | null = null;
  readonly #settledWaiters = new Set<() => void>();
  /** The person has had the tab: from then on what it submits is theirs (before, automation's, which never pays). */
  #personHadControl = false;
  /** The person submitted something from the tab (a POST): an ending without the provider's confirmation is uncertain. */
  #submitted = false;
  /** Every new request of the tab is aborted (while a cancel or the expiry decides), see #block. */
  #blocker: ((route: Route) => Promise<void>) | null = null;
  /** The expiry is waiting for a payment in flight to settle. */
  #postponing = false;

  constructor(registry: HoldRegistry, input: HoldInput) {
    this.#registry = registry;
    this.#input = input;
    this.jobId = input.jobId;
    this.providerId = input.driver.id;
    this.providerName = input.driver.name;
    this.page = input.page;
    this.expiresAt = input.expiresAt;
    this.done = new Promise((resolve) => (this.#resolve = resolve));
    this.#reader = new GuardedPage(input.page, input.events);
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
    // The provider's confirmation page, once the person has paid.
    this.page.on('domcontentloaded', () => void this.#checkConfirmation());
    this.page.on('request', (request) => this.#onRequest(request));
    this.page.on('requestfinished', (request) => this.#onAnswered(request));
    this.page.on('requestfailed', (request) => this.#onAnswered(request));
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
    return this.#inFlight.size > 0 || this.#settleTimer !== null;
  }

  /** Whether the hold is waiting past its deadline for a payment in flight (the heartbeat vouches for it). */
  isPostponing(): boolean {
    return this.#postponing && !this.#ended;
  }

  async cancel(): Promise<CancelResult> {
    if (this.#ended) return 'ended';
    // Nothing new leaves the tab while this decides; what left before is known (its request event came first).
    await this.#block();
    if (this.#ended) return 'ended';
    if (this.paymentInFlight()) {
      await this.#unblock();
      return 'payment_in_flight';
    }
    // Paid a moment ago and the confirmation not read yet: the booking is done, not cancelled.
    await this.#checkConfirmation();
    if (this.#ended) return 'ended';
    const uncertain = this.#submitted;
    const P = this.providerName;
    await this.#finish({ kind: 'cancelled', ...(uncertain ? { paymentUncertain: true } : {}) }, uncertain ? {
      to: 'error',
      event: { type: 'job_aborted', providerId: this.providerId, message: `The person cancelled the booking held at ${P} after submitting a payment on its page that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override', paymentUncertain: true } },
      error: { reason: 'cancelled_by_user', message: `the person cancelled at the handoff after submitting a payment that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
      summary: `Cancelled by the person at the handoff after submitting a payment that ${P} did not confirm: check with ${P} whether the card was charged (it held: ${this.#input.what}).`,
    } : {
      to: 'error',
      event: { type: 'job_aborted', providerId: this.providerId, message: `The person cancelled the booking held at ${P}; the hold is released.`, data: { reason: 'cancelled_by_user', providerOutcome: 'manual_override' } },
      error: { reason: 'cancelled_by_user', message: 'the person cancelled at the handoff' },
      summary: `Cancelled by the person at the handoff; nothing was booked at ${P} (it held: ${this.#input.what}).`,
    });
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

  /** Stops watching without touching the job (the hold never became one, or the registry drops it). */
  detach(): void {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#clearSubmission();
    this.#resolve({ kind: 'lost', reason: 'detached' });
  }

  /**
   * A request that may be the person's payment: any POST (a form, a script's fetch, in any frame)
   * or a navigation of the tab, once the person has had it. Seen here before the request can reach
   * the network (the guard intercepts every request, and Playwright reports it first).
   */
  #onRequest(request: Request): void {
    if (this.#ended || !this.#personHadControl || this.#blocker) return;
    const method = request.method();
    const post = method !== 'GET' && method !== 'HEAD';
    let navigation = false;
    try {
      navigation = request.isNavigationRequest() && request.frame() === this.page.mainFrame();
    } catch {
      // A worker's request has no frame: only its method tells.
    }
    if (!post && !navigation) return;
    if (post) this.#submitted = true;
    this.#inFlight.add(request);
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = null;
  }

  #onAnswered(request: Request): void {
    if (!this.#inFlight.delete(request) || this.#inFlight.size > 0) return;
    // A redirect answers one request and starts the next a moment later: settled only when quiet.
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = setTimeout(() => void this.#settle(), SETTLE_MS);
    this.#settleTimer.unref();
  }

  async #settle(): Promise<void> {
    if (this.#inFlight.size > 0) return;
    // The page the payment led to: the provider's confirmation completes the job before anyone is told it settled.
    await this.#checkConfirmation();
    if (this.#inFlight.size > 0) return;
    this.#settleTimer = null;
    this.#wakeSettledWaiters();
  }

  #clearSubmission(): void {
    this.#inFlight.clear();
    if (this.#settleTimer) clearTimeout(this.#settleTimer);
    this.#settleTimer = null;
    this.#wakeSettledWaiters();
  }

  #wakeSettledWaiters(): void {
    for (const wake of this.#settledWaiters) wake();
    this.#settledWaiters.clear();
  }

  /** Resolves once no payment is in flight (or the hold ended), or after `ms`. */
  #untilSettled(ms: number): Promise<void> {
    if (!this.paymentInFlight() || this.#ended) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.#settledWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      timer.unref();
      this.#settledWaiters.add(done);
    });
  }

  /**
   * Aborts every new request of the tab: a Pay pressed while a cancel or the expiry is deciding
   * never reaches the provider. Once this resolves, any request that got out before is in #inFlight.
   */
  async #block(): Promise<void> {
    if (this.#blocker) return;
    const blocker = (route: Route) => route.abort('blockedbyclient').catch(() => {});
    await this.page.route('**/*', blocker).catch(() => {});
    this.#blocker = blocker;
  }

  async #unblock(): Promise<void> {
    const blocker = this.#blocker;
    if (!blocker) return;
    this.#blocker = null;
    await this.page.unroute('**/*', blocker).catch(() => {});
  }

  /** Releases the hold because this process cannot keep it (shutdown, browser gone). */
  async lose(reason: string): Promise<void> {
    await this.#lose(reason);
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
    const deadline = this.expiresAt.getTime() + MAX_POSTPONE_MS;
    for (;;) {
      if (this.#ended) return;
      await this.#block();
      if (this.#ended || !this.paymentInFlight()) break;
      // The person pressed Pay and the provider has not answered: the card may be charged as we
      // speak. The hold waits for the answer (new requests flow again: the redirect to the
      // confirmation must get through), and so do other processes' sweeps.
      await this.#unblock();
      if (Date.now() >= deadline) break;
      if (!this.#postponing) {
        this.#postponing = true;
        this.#registry.log.info({ jobId: this.jobId }, 'hold deadline reached with a payment in flight: waiting for the provider\'s answer');
        await this.#registry.vouch(this.jobId).catch(() => {});
      }
      await this.#untilSettled(deadline - Date.now());
    }
    if (this.#ended) return;
    await this.#checkConfirmation();
    if (this.#ended) return;
    const P = this.providerName;
    // Submitted and not confirmed (or still unanswered after the wait): only the provider knows.
    const uncertain = this.#submitted || this.paymentInFlight();
    await this.#finish({ kind: 'expired', ...(uncertain ? { paymentUncertain: true } : {}) }, uncertain ? {
      to: 'error',
      event: { type: 'job_failed', providerId: this.providerId, message: `The hold at ${P} ran out after the person submitted a payment that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'handoff_expired', providerOutcome: 'manual_override', paymentUncertain: true } },
      error: { reason: 'handoff_expired', message: `the hold ran out after a payment was submitted that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
      summary: `The hold at ${P} ran out after the person submitted a payment that ${P} did not confirm: check with ${P} whether the card was charged (it held: ${this.#input.what}).`,
    } : {
      to: 'error',
      event: { type: 'job_failed', providerId: this.providerId, message: `The hold at ${P} ran out before the card security code was entered; nothing was booked.`, data: { reason: 'handoff_expired', providerOutcome: 'manual_override' } },
      error: { reason: 'handoff_expired', message: 'the hold ran out before the person paid' },
      summary: `The hold at ${P} ran out before the person paid; nothing was booked (it held: ${this.#input.what}).`,
    });
  }

  async #lose(reason: string): Promise<void> {
    const P = this.providerName;
    const uncertain = this.#submitted || this.paymentInFlight();
    await this.#finish({ kind: 'lost', reason, ...(uncertain ? { paymentUncertain: true } : {}) }, uncertain ? {
      to: 'error',
      event: { type: 'job_failed', providerId: this.providerId, message: `The held booking at ${P} was lost (${reason}) after the person submitted a payment that ${P} did not confirm; whether the card was charged is not known: check with ${P}.`, data: { reason: 'hold_lost', paymentUncertain: true } },
      error: { reason: 'hold_lost', message: `${reason}, after a payment was submitted that ${P} did not confirm; check with ${P} whether the card was charged`, paymentUncertain: true },
      summary: `The booking held at ${P} was lost (${reason}) after the person submitted a payment that ${P} did not confirm: check with ${P} whether the card was charged (it held: ${this.#input.what}).`,
    } : {
      to: 'error',
      event: { type: 'job_failed', providerId: this.providerId, message: `The held booking at ${P} was lost (${reason}); nothing was booked.`, data: { reason: 'hold_lost' } },
      error: { reason: 'hold_lost', message: reason },
      summary: `The booking held at ${P} was lost (${reason}); nothing was booked (it held: ${this.#input.what}).`,
    });
  }

  async #finish(end: HoldEnd, change: { to: 'completed' | 'error'; event: NewAuditEvent; error?: { reason: string; message: string; paymentUncertain?: boolean }; confirmationCode?: string; summary: string }, closeAfterMs = 0): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#clearSubmission();
    try {
      await transition(this.#registry.db, this.jobId, {
        to: change.to,
        from: ['paused_payment'],
        event: change.event,
        set: {
          summary: change.summary,
          hold_instance: null,
          ...(change.confirmationCode ? { confirmation_code: change.confirmationCode } : {}),
          ...(change.error ? { error: JSON.stringify({ ...change.error, step: 'payment', provider: this.providerId, url: this.#input.url }) } : {}),
        },
      });
    } catch (error) {
      // Someone else settled it first (another process's sweep): the hold is over all the same.
      if (!(error instanceof DomainError)) this.#registry.log.warn({ err: { message: (error as Error).message }, jobId: this.jobId }, 'could not record the end of a hold');
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
}

export class HoldRegistry {
  readonly db: Kysely<DB>;
  readonly log: Logger;
  /** This process, as named in jobs.hold_instance. */
  readonly instanceId: string;
  readonly #sessions = new Map<string, Session>();
  #timers: NodeJS.Timeout[] = [];

  constructor(db: Kysely<DB>, log: Logger, instanceId: string) {
    this.db = db;
    this.log = log;
    this.instanceId = instanceId;
  }

  get(jobId: string): HeldSession | undefined {
    return this.#sessions.get(jobId);
  }

  list(): HeldSession[] {
    return [...this.#sessions.values()];
  }

  /** Registers a hold before the job is marked paused, so the handoff finds it as soon as the status says so. */
  add(input: HoldInput): HeldSession {
    // The tab is the person's from here: the run's read-only view (sessionUrl) stops showing it.
    releaseRunningContext(input.jobId);
    const session = new Session(this, input);
    this.#sessions.set(input.jobId, session);
    session.start();
    return session;
  }

  /** Drops a session without changing its job (used when a pause could not be recorded). */
  forget(jobId: string): void {
    this.#sessions.get(jobId)?.detach();
    this.#sessions.delete(jobId);
  }

  /** Heartbeats for this process's holds, and the sweep that releases other processes' dead or expired holds. */
  start(options: { sweep: boolean }): void {
    this.#timers.push(setInterval(() => void this.heartbeat().catch(() => {}), HEARTBEAT_MS));
    if (options.sweep) {
      this.#timers.push(setInterval(() => void this.sweep().catch((error: unknown) => this.log.warn({ err: { message: (error as Error).message } }, 'hold sweep failed')), SWEEP_MS));
      void this.sweep().catch(() => {});
    }
    for (const timer of this.#timers) timer.unref();
  }

  /**
   * Past its deadline, a hold waiting for a payment in flight says so to the other processes: its
   * hold_seen_at is set ahead (now + VOUCH_SECONDS), which their sweeps read as "still held, do not
   * expire". A holder that dies stops vouching, and the usual staleness rule releases the hold.
   */
  async vouch(jobId: string): Promise<void> {
    await this.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now() + make_interval(secs => ${VOUCH_SECONDS})` }).where('id', '=', jobId).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
  }

  async heartbeat(): Promise<void> {
    const ids = [...this.#sessions.keys()];
    if (ids.length === 0) return;
    const vouched = ids.filter((id) => this.#sessions.get(id)?.isPostponing());
    const seen = ids.filter((id) => !vouched.includes(id));
    if (seen.length > 0) await this.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now()` }).where('id', 'in', seen).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
    await Promise.all(vouched.map((id) => this.vouch(id)));
    // A job ended by another process (a cancel handled where the session is not held, its sweep)
    // changed only the row: the tab here stays open, and someone connected to it could still pay
    // for a booking that has ended. Close it. (A job still `running` is a pause being recorded.)
    const rows = await this.db.selectFrom('jobs').select(['id', 'status']).where('id', 'in', ids).execute();
    const statuses = new Map(rows.map((row) => [row.id, row.status as JobStatus]));
    const settled = ids.filter((id) => {
      const status = statuses.get(id);
      return status === undefined || (status !== 'paused_payment' && TERMINAL_STATUSES.includes(status));
    });
    await Promise.all(settled.map(async (id) => {
      const session = this.#sessions.get(id);
      if (!session) return;
      this.log.info({ jobId: id }, 'closing a held session whose job ended in another process');
      // The row already says how the job ended: the session's own transition is refused and writes nothing.
      await session.lose('the job ended in another process');
    }));
  }

  /** Paused jobs held by no live process (or past their hold) become errors. Returns how many. */
  async sweep(): Promise<number> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id', 'provider_id', sql<boolean>`hold_expires_at is not null and hold_expires_at <= now()`.as('expired')])
      .where('status', '=', 'paused_payment')
      .where((eb) =>
        eb.or([
          eb('hold_expires_at', 'is', null),
          // Past its deadline, unless its holder vouches for it (a payment in flight: see vouch()).
          eb.and([eb('hold_expires_at', '<=', sql<Date>`now()`), eb.or([eb('hold_seen_at', 'is', null), eb('hold_seen_at', '<=', sql<Date>`now()`)])]),
          eb('hold_seen_at', 'is', null),
          eb('hold_seen_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_SECONDS})`),
        ]),
      )
      .execute();
    let released = 0;
    for (const row of rows) {
      if (this.#sessions.has(row.id)) continue;
      const expired = row.expired;
      const providerId = row.provider_id ?? undefined;
      try {
        await transition(this.db, row.id, {
          to: 'error',
          from: ['paused_payment'],
          event: expired
            ? { type: 'job_failed', providerId, message: 'The hold ran out before the card security code was entered; nothing was booked.', data: { reason: 'handoff_expired', providerOutcome: 'manual_override' } }
            : { type: 'job_failed', providerId, message: 'The process holding this booking\'s browser session stopped; the hold is lost and nothing was booked.', data: { reason: 'hold_lost' } },
          set: {
            hold_instance: null,
            error: JSON.stringify(expired
              ? { reason: 'handoff_expired', step: 'payment', provider: providerId ?? null, message: 'the hold ran out before the person paid' }
              : { reason: 'hold_lost', step: 'payment', provider: providerId ?? null, message: 'the process holding the browser session stopped' }),
          },
        });
        released += 1;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return released;
  }

  /** At shutdown: a browser session cannot outlive its process, so its holds end now. */
  async stop(): Promise<void> {
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    await Promise.all([...this.#sessions.values()].map((s) => s.lose('the service stopped')));
  }
}
