import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import websocket from '@fastify/websocket';
import { liveViewOf } from '../browser/live-view.ts';
import { executorSessions, type BrowserSessions } from '../handoff/browser-sessions.ts';
import { adjustments, cardCodeAsked, describeHeld, handoffOutcome, headline, statusWords } from '../handoff/describe.ts';
import { ScreenControl, TAKEN_OVER } from '../handoff/control.ts';
import { cancelHandoff, confirmationMayFollow, openHandoff, type HandoffAccess } from '../handoff/handoff.ts';
import { JobWatcher } from '../handoff/job-watch.ts';
import { openSessionView } from '../handoff/session-view.ts';
import { TERMINAL_STATUSES } from '../jobs/transition.ts';
import { refreshProviderNames } from '../providers/registry.ts';
import type { AuditEvent, Job } from '../jobs/types.ts';
import type { Services } from '../services.ts';
import { bookingRoutes } from './bookings-routes.ts';
import {
  HANDOFF_SCRIPT,
  HANDOFF_SCRIPT_PATH,
  HANDOFF_STYLESHEET,
  HANDOFF_STYLESHEET_PATH,
  sendNotice,
  sendView,
} from './handoff-render.ts';
import { CLOSE_RECONNECT, type LiveViewConnection } from './live-view-socket.ts';
import { sendAsset } from './render.ts';
import { LIVE_VIEW_CLIENT_PATH, liveViewClientRoute, liveViewSocketRoute } from './live-view-routes.ts';
import { csrfTokenOf, sessionPostAllowed, signedInUser, signInPathFor, visitorOf } from './visitor.ts';
import { refuseUnstorable } from '../security/text.ts';

// The person's pages: the handoff (`/handoff/<token>`: pay on a live view of the held booking),
// the read-only view of a running job (`sessionUrl`, `/watch/<jobId>/<token>`), and their bookings.

/** A handoff link past its receipt's window: says nothing of the job. */
const GONE_MESSAGE = 'This payment link has expired. If you booked through an app, it has the outcome; if you booked signed in, your bookings page shows it.';
/** After the held tab closes, how long to wait for the job's final status before closing the view. */
const FINAL_STATUS_WAIT_MS = 5_000;
/** How often a watcher checks that it still shows the tab the run is driving (it moves on fallback). */
const RUNNING_TAB_CHECK_MS = 500;

export interface WebContext {
  services: Services;
  sessions: BrowserSessions;
  watcher: JobWatcher;
  origin: string;
}

type TokenParams = { Params: { token: string } };

/** The live-view client names its page load (random, per load; a reload is a new screen) so that its reconnects are known as its own. */
function screenOf(request: FastifyRequest): string | null {
  const screen = (request.query as Record<string, unknown> | undefined)?.screen;
  return typeof screen === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(screen) ? screen : null;
}

type WatchParams = { Params: { jobId: string; token: string } };

export async function handoffWeb(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const ctx: WebContext = {
    services,
    sessions: executorSessions(services.executor.holds),
    watcher: new JobWatcher(services.db),
    origin: new URL(services.config.BASE_URL).origin,
  };
  app.addHook('onClose', async () => ctx.watcher.close());
  // Text PostgreSQL cannot store, in any parameter, is refused (400) before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));
  if (!app.hasDecorator('websocketServer')) await app.register(websocket, { options: { maxPayload: 4096 } });
  if (!app.hasContentTypeParser('application/x-www-form-urlencoded')) await app.register(formbody, { bodyLimit: 4096 });

  liveViewClientRoute(app);
  app.get(HANDOFF_STYLESHEET_PATH, async (_request, reply) => sendAsset(reply, 'css', HANDOFF_STYLESHEET));
  app.get(HANDOFF_SCRIPT_PATH, async (_request, reply) => sendAsset(reply, 'js', HANDOFF_SCRIPT));

  handoffRoutes(app, ctx);
  watchRoutes(app, ctx);
  bookingRoutes(app, ctx);
}

// ---- The handoff ----

/** The status message a live view gets about its job (on its socket, or from `/handoff/<token>/status`). */
export function statusMessage(job: Job): Record<string, unknown> {
  const message: Record<string, unknown> = { t: 'status', status: job.status, words: statusWords(job) };
  if (job.status === 'completed' && job.confirmationCode) message.confirmationCode = job.confirmationCode;
  if (job.status === 'error') message.message = handoffOutcome(job).message;
  if (confirmationMayFollow(job)) message.confirmationMayFollow = true;
  return message;
}

function handoffRoutes(app: FastifyInstance, ctx: WebContext): void {
  const { services, watcher } = ctx;
  const deps = { db: services.db, sessions: ctx.sessions };
  // One screen in control of each held tab (src/handoff/control.ts).
  const control = new ScreenControl((jobId, userInControl) => ctx.sessions.setUserInControl(jobId, userInControl));

  const refuse = (request: FastifyRequest<TokenParams>, reply: FastifyReply, access: Exclude<HandoffAccess, { kind: 'open' }>, signedIn: boolean) => {
    switch (access.kind) {
      case 'not_found':
        return sendNotice(reply, 404, 'Link not valid', 'This payment link is not valid. Check that you copied all of it.', ctx);
      case 'sign_in':
        // Back to the handoff page itself, whichever of its routes asked (a Cancel POST has no page to come back to).
        return reply.redirect(signInPathFor(request, `/handoff/${request.params.token}`), 303);
      case 'forbidden':
        return sendNotice(reply, 403, 'Not your booking', 'This page belongs to another account. Sign in with the account that asked for the booking.', ctx);
      case 'ended':
        return sendOutcome(request, reply, access, signedIn);
      case 'gone':
        return sendNotice(reply, 410, 'Link expired', GONE_MESSAGE, ctx);
    }
  };

  /**
   * What became of the booking, at the link that was to pay for it: the confirmation code and what
   * was booked, or that it was cancelled or ran out. Never the live view, never Cancel.
   */
  const sendOutcome = async (request: FastifyRequest<TokenParams>, reply: FastifyReply, ended: { job: Job; events: AuditEvent[] }, signedIn: boolean, status = 200, note?: string) => {
    await refreshProviderNames(services.db);
    const outcome = handoffOutcome(ended.job);
    // An ending the provider may still overturn: the page asks, and shows the booking if it comes.
    const awaiting = confirmationMayFollow(ended.job);
    return sendView(reply, 'handoff-done', {
      awaitConfirmation: awaiting ? `/handoff/${request.params.token}/status` : null,
      scripts: awaiting ? [HANDOFF_SCRIPT_PATH] : [],
      user: await signedInUser(request),
      title: outcome.title,
      note: note ?? null,
      message: outcome.message,
      confirmationCode: outcome.confirmationCode,
      held: describeHeld(ended.job, ended.events),
      link: signedIn ? { href: '/bookings', text: 'See your bookings' } : null,
    }, { ...ctx, status });
  };

  app.get<TokenParams>('/handoff/:token', async (request, reply) => {
    const visitor = await visitorOf(request);
    const access = await openHandoff(deps, request.params.token, visitor);
    if (access.kind !== 'open') return refuse(request, reply, access, visitor !== null);
    const { job, events } = access;
    const expires = job.holdExpiresAt ? new Date(job.holdExpiresAt) : null;
    const seconds = expires ? Math.max(0, Math.round((expires.getTime() - Date.now()) / 1000)) : 0;
    const token = request.params.token;
    const held = describeHeld(job, events);
    return sendView(reply, 'handoff', {
      user: await signedInUser(request),
      held,
      headline: headline(held),
      adjustments: adjustments(events),
      codeAsked: cardCodeAsked(events),
      holdExpiresAt: expires?.toISOString() ?? null,
      holdRemaining: `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`,
      holdUntil: expires ? `${expires.toISOString().slice(11, 16)} UTC` : null,
      live: ctx.sessions.heldPage(job.jobId) !== null,
      socketPath: `/handoff/${token}/live`,
      statusPath: `/handoff/${token}/status`,
      cancelPath: `/handoff/${token}/cancel`,
      csrf: csrfTokenOf(request),
      scripts: [LIVE_VIEW_CLIENT_PATH, HANDOFF_SCRIPT_PATH],
    }, ctx);
  });

  app.post<TokenParams & { Body: { csrf?: string } | undefined }>('/handoff/:token/cancel', async (request, reply) => {
    // The token in the path is what a forged cross-site form would lack; the browser's own
    // statement of where the form came from is checked too, and a signed-in owner's CSRF token.
    if (!fromThisOrigin(request, ctx.origin)) return sendNotice(reply, 403, 'Not allowed', 'This request did not come from the payment page.', ctx);
    const visitor = await visitorOf(request);
    if (visitor && !sessionPostAllowed(request, request.body?.csrf)) {
      return sendNotice(reply, 403, 'Not allowed', 'This request did not come from the payment page.', ctx);
    }
    const outcome = await cancelHandoff(deps, request.params.token, visitor);
    if (outcome.kind === 'cancelled') return sendOutcome(request, reply, outcome, visitor !== null);
    if (outcome.kind === 'payment_in_flight') {
      return sendNotice(reply, 409, 'Your payment is being processed', 'Your payment is being processed by the provider, so this booking cannot be cancelled now. Go back to the payment page: it shows the outcome as soon as the provider answers.', {
        ...ctx,
        link: { href: `/handoff/${request.params.token}`, text: 'Back to the payment page' },
      });
    }
    if (outcome.kind === 'open') return reply.redirect(`/handoff/${request.params.token}`, 303);
    // Paid, cancelled or run out before this cancel arrived: it changed nothing, and the page says what did.
    if (outcome.kind === 'ended') return sendOutcome(request, reply, outcome, visitor !== null, 409, 'There was nothing left to cancel.');
    return refuse(request, reply, outcome, visitor !== null);
  });

  // The page asks this when its live view's socket closed without an outcome (a phone that locked
  // mid-payment, a dropped connection): what became of the job, under the page's own access rule.
  app.get<TokenParams>('/handoff/:token/status', async (request, reply) => {
    reply.header('cache-control', 'no-store').header('x-content-type-options', 'nosniff');
    const access = await openHandoff(deps, request.params.token, await visitorOf(request));
    switch (access.kind) {
      case 'not_found':
        return reply.code(404).send({ error: { code: 'not_found', message: 'This payment link is not valid.' } });
      case 'sign_in':
        return reply.code(401).send({ error: { code: 'sign_in', message: 'Sign in with the account that asked for the booking.' } });
      case 'forbidden':
        return reply.code(403).send({ error: { code: 'forbidden', message: 'This page belongs to another account.' } });
      case 'gone':
        return reply.code(410).send({ error: { code: 'gone', message: GONE_MESSAGE } });
    }
    const message = { ...statusMessage(access.job), open: access.kind === 'open' };
    // Past its hold a moment before the holder records it: it has expired all the same.
    if (!message.open && access.job.status === 'paused_payment') Object.assign(message, { words: handoffOutcome(access.job).title, message: handoffOutcome(access.job).message });
    return message;
  });

  liveViewSocketRoute(app, '/handoff/:token/live', {
    allowedOrigin: ctx.origin,
    authorize: async (request) => {
      const { token } = request.params as { token: string };
      const access = await openHandoff(deps, token, await visitorOf(request));
      if (access.kind === 'not_found') return { refused: 404, message: 'not found' };
      if (access.kind === 'sign_in' || access.kind === 'forbidden') return { refused: 403, message: 'forbidden' };
      if (access.kind === 'ended' || access.kind === 'gone') return { refused: 410, message: 'ended' };
      const { jobId } = access.job;
      const page = ctx.sessions.heldPage(jobId);
      if (!page) return { refused: 410, message: 'not held here' };
      const screen = screenOf(request);
      if (control.wasTakenOver(page, screen)) {
        return {
          view: null,
          mode: 'control',
          opened(connection: LiveViewConnection) {
            connection.end(TAKEN_OVER);
            return () => {};
          },
        };
      }
      const claim = control.claim(jobId, page, screen);
      // Let go when the socket closes, also when the handshake never becomes a connection (the
      // upgrade refused, its client gone).
      const client = request.raw.socket;
      if (client.destroyed) claim.release();
      else client.once('close', claim.release);
      if (!(await control.handOver(claim))) return { refused: 410, message: 'gone' };
      // And at the latest 10 s from now if the upgrade has not completed by then.
      const unclaimed = setTimeout(claim.release, 10_000);
      unclaimed.unref();
      let finalWait: NodeJS.Timeout | undefined;
      return {
        view: liveViewOf(page),
        mode: 'control',
        opened(connection: LiveViewConnection) {
          clearTimeout(unclaimed);
          switch (control.open(claim, connection)) {
            case 'taken_over':
              connection.end(TAKEN_OVER);
              return claim.release;
            case 'retry':
              // The upgrade took so long that the claim was let go (the guard covers the tab
              // again): this connection must not relay input unclaimed.
              connection.end('retry', CLOSE_RECONNECT);
              return () => {};
          }
          connection.notify(statusMessage(access.job));
          const stop = watcher.watchJob(jobId, (job) => {
            connection.notify(statusMessage(job));
            if (TERMINAL_STATUSES.includes(job.status) && job.status !== 'paused_payment') connection.end(job.status);
          });
          return () => {
            stop();
            clearTimeout(finalWait);
            claim.release();
          };
        },
        onViewEnded(connection: LiveViewConnection) {
          // The held tab closed (the provider confirmed, the hold ended, the booking was cancelled):
          // the job's final status follows in a moment; the watcher above sends it and closes.
          finalWait = setTimeout(() => connection.end('page_closed'), FINAL_STATUS_WAIT_MS);
          finalWait.unref();
        },
      };
    },
  });
}

/**
 * A state-changing request from a page of this service, as far as the browser tells. Our pages send
 * no Referer, so a browser's form POST from them says `Origin: null`; `Sec-Fetch-Site` (which a page
 * cannot forge) is then what tells. Another origin, or a cross-site fetch, is refused.
 */
function fromThisOrigin(request: FastifyRequest, origin: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined) return site === 'same-origin' && (request.headers.origin === undefined || request.headers.origin === 'null' || request.headers.origin === origin);
  const from = request.headers.origin;
  return from === undefined || from === origin;
}

// ---- Watching a running job (sessionUrl) ----

function watchRoutes(app: FastifyInstance, ctx: WebContext): void {
  const { services, watcher } = ctx;
  const deps = { db: services.db, secretKey: services.secretKey };

  app.get<WatchParams>('/watch/:jobId/:token', async (request, reply) => {
    const visitor = await visitorOf(request);
    const access = await openSessionView(deps, request.params.jobId, request.params.token, visitor);
    switch (access.kind) {
      case 'not_found':
        return sendNotice(reply, 404, 'Link not valid', 'This link is not valid.', ctx);
      case 'sign_in':
        return reply.redirect(signInPathFor(request, request.url.split('?')[0]!), 303);
      case 'forbidden':
        return sendNotice(reply, 403, 'Not your booking', 'This page belongs to another account.', ctx);
      case 'ended':
        return sendNotice(reply, 410, 'Nothing to watch', 'This booking is no longer running, so there is nothing to watch.', ctx);
    }
    return sendView(reply, 'handoff-watch', {
      user: await signedInUser(request),
      request: describeHeld(access.job, []),
      socketPath: `/watch/${request.params.jobId}/${request.params.token}/live`,
      scripts: [LIVE_VIEW_CLIENT_PATH, HANDOFF_SCRIPT_PATH],
    }, ctx);
  });

  liveViewSocketRoute(app, '/watch/:jobId/:token/live', {
    allowedOrigin: ctx.origin,
    authorize: async (request) => {
      const { jobId, token } = request.params as { jobId: string; token: string };
      const access = await openSessionView(deps, jobId, token, await visitorOf(request));
      if (access.kind === 'not_found') return { refused: 404, message: 'not found' };
      if (access.kind === 'sign_in' || access.kind === 'forbidden') return { refused: 403, message: 'forbidden' };
      if (access.kind === 'ended') return { refused: 410, message: 'ended' };
      // Before the run opens its first tab there is nothing to show: the viewer waits, connected.
      const page = ctx.sessions.runningPage(jobId);
      return {
        view: page ? liveViewOf(page) : null,
        mode: 'watch',
        opened(connection: LiveViewConnection) {
          const stop = watcher.watchJob(jobId, (job) => {
            if (job.status === 'running') return;
            connection.notify(statusMessage(job));
            connection.end(job.status);
          });
          // The run moves to another tab when it falls back to another provider: reconnect to it.
          // (No tab any more means the run paused or ended: onViewEnded below has that in hand.)
          const moved = setInterval(() => {
            const now = ctx.sessions.runningPage(jobId);
            if (now !== null && now !== page) connection.end('moved', CLOSE_RECONNECT);
          }, RUNNING_TAB_CHECK_MS);
          moved.unref();
          return () => {
            stop();
            clearInterval(moved);
          };
        },
        onViewEnded(connection: LiveViewConnection, reason) {
          if (reason !== 'held') return connection.end('moved', CLOSE_RECONNECT);
          // Paused: frames stopped at once; the watcher above sends the status in a moment and closes.
          const finalWait = setTimeout(() => connection.end('paused'), FINAL_STATUS_WAIT_MS);
          finalWait.unref();
        },
      };
    },
  });
}
