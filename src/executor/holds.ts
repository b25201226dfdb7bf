import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import { releaseRunningContext } from '../browser/running-tabs.ts';
import type { DB } from '../db/schema.ts';
import { confirmAfterHoldEnded, TERMINAL_STATUSES, transition } from '../jobs/transition.ts';
import { DomainError, type JobStatus } from '../jobs/types.ts';
import { providerName, refreshProviderNames } from '../providers/registry.ts';
import type { Driver } from '../providers/types.ts';
import type { GuardControls } from './guard/index.ts';
import { GuardedPage } from './guard/page-api.ts';
import type { GuardEvents } from './guard/events.ts';
import { cancelEnding, expiryEnding, lossEnding, type Canceller, type Ending } from './hold-endings.ts';
import { InFlight, submissionOf } from './in-flight.ts';
import { timeLimit } from '../browser/time-limit.ts';
import { CONFIRMATION_GRACE_MS, FINISH_RETRY_MS, HEARTBEAT_MS, MAX_POSTPONE_MS, STALE_SECONDS, STOP_WAIT_MS, SWEEP_MS, VOUCH_SECONDS, WRITE_WAIT_MS } from './hold-timings.ts';

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
// A payment in flight. Once the person has had the tab, what it submits may be their payment (what
// counts: in-flight.ts): the provider may charge the card before it answers. Until the page it leads
// to has settled, nothing ends the hold on the assumption that nothing was paid: a cancel is refused
// ('payment_in_flight'), the expiry waits (up to MAX_POSTPONE_MS past the deadline), and either then
// looks for the provider's confirmation page first. A hold that ends without a confirmation after
// the person submitted something is worded as uncertain ("check with the provider"), never as
// "nothing was charged": only the provider knows.
//
// Other processes see the hold only through its row, so the holder writes there what they must
// respect: while a payment is in flight its hold_seen_at is vouched ahead (now + VOUCH_SECONDS:
// their sweeps leave it alone, a cancel reaching them is refused), and once the person submitted
// one, payment_submitted_at (an ending they record is then worded as uncertain). Whatever another
// process recorded, the provider's confirmation on the held tab has the last word: the job is
// completed (confirmAfterHoldEnded).

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
  guard: GuardControls;
  events: GuardEvents;
  expiresAt: Date;
  /** What is held (outcome.heldDescription), for the summaries written when the hold ends. */
  what: string;
  url: string;
}

class Session implements HeldSession {
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
    this.#reader = new GuardedPage(input.page, input.events);
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

/** The provider's name for an ending recorded from the row alone (a sweep, a cancel in a process not holding the tab). */
function providerNameOf(providerId: string | undefined): string {
  return providerName(providerId) ?? 'the provider';
}

/** What an ending writes besides the status, whoever records it: the hold let go, and the job's error says where it happened. */
function endingColumns(ending: Ending, provider: string | null, url?: string) {
  return {
    summary: ending.summary,
    hold_instance: null,
    ...(ending.confirmationCode ? { confirmation_code: ending.confirmationCode } : {}),
    ...(ending.error ? { error: JSON.stringify({ ...ending.error, step: 'payment', provider, ...(url === undefined ? {} : { url }) }) } : {}),
  };
}
type EndingColumns = ReturnType<typeof endingColumns>;

export interface HoldRegistryOptions {
  /** MAX_POSTPONE_MS unless set (tests shorten it). */
  maxPostponeMs?: number;
}

export class HoldRegistry {
  readonly db: Kysely<DB>;
  readonly log: Logger;
  /** This process, as named in jobs.hold_instance. */
  readonly instanceId: string;
  readonly maxPostponeMs: number;
  /** The service is stopping: a failed write is not tried again. */
  stopping = false;
  readonly #sessions = new Map<string, Session>();
  #timers: NodeJS.Timeout[] = [];

  constructor(db: Kysely<DB>, log: Logger, instanceId: string, options: HoldRegistryOptions = {}) {
    this.db = db;
    this.log = log;
    this.instanceId = instanceId;
    this.maxPostponeMs = options.maxPostponeMs ?? MAX_POSTPONE_MS;
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
   * A hold with a payment in flight says so to the other processes: its hold_seen_at is set ahead
   * (now + VOUCH_SECONDS), which their sweeps read as "still held, do not end", and a cancel there
   * as "a payment is being processed". Written as the payment leaves, and at every heartbeat while
   * it is in flight (or the expiry waits for it). A holder that dies stops vouching, and the usual
   * staleness rule releases the hold.
   */
  async vouch(jobId: string): Promise<void> {
    await this.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now() + make_interval(secs => ${VOUCH_SECONDS})` }).where('id', '=', jobId).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
  }

  /** The payment has been answered: the hold is no longer vouched for ahead (a cancel elsewhere may go through again). */
  async unvouch(jobId: string): Promise<void> {
    await this.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`now()` }).where('id', '=', jobId).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
  }

  /** The person submitted a payment from the held tab: whoever records the end of the hold words it as uncertain. */
  async recordSubmission(jobId: string): Promise<void> {
    await this.db.updateTable('jobs').set({ payment_submitted_at: sql<Date>`coalesce(payment_submitted_at, now())` }).where('id', '=', jobId).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
  }

  async heartbeat(): Promise<void> {
    const ids = [...this.#sessions.keys()];
    if (ids.length === 0) return;
    const vouched = ids.filter((id) => this.#sessions.get(id)?.vouching());
    const seen = ids.filter((id) => !vouched.includes(id));
    // Never back from a vouch written meanwhile (a payment that left as this heartbeat began); the
    // session takes its vouch back itself once the payment has been answered (unvouch).
    if (seen.length > 0) await this.db.updateTable('jobs').set({ hold_seen_at: sql<Date>`greatest(hold_seen_at, now())` }).where('id', 'in', seen).where('hold_instance', '=', this.instanceId).where('status', '=', 'paused_payment').execute();
    await Promise.all(vouched.map((id) => this.#sessions.get(id)?.renewVouch()));
    // A job ended by another process (a cancel handled where the session is not held, its sweep)
    // changed only the row: the tab here stays open, and someone connected to it could still pay
    // for a booking that has ended. Close it, once a payment in flight on it has been answered.
    // (A job still `running` is a pause being recorded.)
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
      // The row already says how the job ended: the session's own transition is refused and writes
      // nothing, unless the tab shows the provider's confirmation (then the job is completed).
      await session.endedElsewhere();
    }));
  }

  /** Paused jobs held by no live process (or past their hold) become errors. Returns how many. */
  async sweep(): Promise<number> {
    const rows = await this.db
      .selectFrom('jobs')
      .select(['id', 'provider_id', sql<boolean>`hold_expires_at is not null and hold_expires_at <= now()`.as('expired'), sql<boolean>`payment_submitted_at is not null`.as('submitted')])
      .where('status', '=', 'paused_payment')
      .where((eb) =>
        eb.or([
          // A pause written without its hold (no deadline, no holder): released once it has stayed so
          // for the staleness limit (every node sweeps, web nodes too, so not while it is being written).
          eb.and([eb.or([eb('hold_expires_at', 'is', null), eb('hold_seen_at', 'is', null)]), eb('updated_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_SECONDS})`)]),
          // Past its deadline, unless its holder vouches for it (a payment in flight: see vouch()).
          eb.and([eb('hold_expires_at', '<=', sql<Date>`now()`), eb.or([eb('hold_seen_at', 'is', null), eb('hold_seen_at', '<=', sql<Date>`now()`)])]),
          eb('hold_seen_at', '<', sql<Date>`now() - make_interval(secs => ${STALE_SECONDS})`),
        ]),
      )
      .execute();
    let released = 0;
    if (rows.length) await refreshProviderNames(this.db);
    for (const row of rows) {
      if (this.#sessions.has(row.id)) continue;
      const providerId = row.provider_id ?? undefined;
      const P = providerNameOf(providerId);
      // A payment the person submitted there is uncertain: the holder that saw it is gone.
      const ending = row.expired
        ? expiryEnding(providerId, P, null, row.submitted)
        : lossEnding(providerId, P, 'the process holding this booking\'s browser session stopped', null, row.submitted);
      try {
        await transition(this.db, row.id, { to: 'error', from: ['paused_payment'], event: ending.event, set: endingColumns(ending, providerId ?? null) });
        released += 1;
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
      }
    }
    return released;
  }

  /**
   * A cancel that reached a process not holding the session: the row is ended here, and the holder
   * closes its tab at its next heartbeat. Refused while the holder vouches for a payment in flight
   * (decided under the row's lock, so a vouch written meanwhile is seen); worded as uncertain when
   * the person submitted one.
   */
  async cancelElsewhere(jobId: string, by: Canceller = 'person'): Promise<CancelResult> {
    await refreshProviderNames(this.db);
    try {
      await transition(this.db, jobId, {
        to: 'error',
        from: ['paused_payment'],
        decide: async (trx) => {
          const row = await trx.selectFrom('jobs').select(['provider_id', sql<boolean>`hold_instance is not null and hold_seen_at > now()`.as('vouched'), sql<boolean>`payment_submitted_at is not null`.as('submitted')]).where('id', '=', jobId).executeTakeFirstOrThrow();
          if (row.vouched) throw new DomainError('payment_in_flight', `job ${jobId} has a payment in flight in the process holding it`);
          const providerId = row.provider_id ?? undefined;
          const ending = cancelEnding(providerId, providerNameOf(providerId), null, row.submitted, by);
          return { event: ending.event, set: endingColumns(ending, providerId ?? null) };
        },
      });
      return 'cancelled';
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'payment_in_flight') return 'payment_in_flight';
      return 'ended';
    }
  }

  /**
   * Draining (a rolling restart): resolves once every hold of this process has ended (paid,
   * cancelled, run out) or `ms` has passed. The holds are served meanwhile as ever.
   */
  async untilEmpty(ms: number): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.#sessions.size > 0 && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(1_000, Math.max(0, deadline - Date.now())));
        for (const session of this.#sessions.values()) void session.done.then(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** At shutdown: a browser session cannot outlive its process, so its holds end now (a payment in flight is given a few seconds to be answered). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#timers = [];
    await Promise.all([...this.#sessions.values()].map((s) => s.lose('the service stopped', STOP_WAIT_MS)));
  }
}
