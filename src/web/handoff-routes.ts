import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import formbody from '@fastify/formbody';
import websocket from '@fastify/websocket';
import type { BrowserSessions } from '../executor/browser-sessions.ts';
import { adjustments, cardCodeAsked, describeHeld, handoffOutcome, headline } from '../handoff/describe.ts';
import { cancelHandoff, confirmationMayFollow, openHandoff, type HandoffAccess } from '../handoff/handoff.ts';
import type { JobWatcher } from '../handoff/job-watch.ts';
import { openSessionView } from '../handoff/session-view.ts';
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
} from '../pages/handoff-render.ts';
import { heldNowhereGrant, heldTabGrant, relayGrant, runningTabGrant, statusMessage } from './live-tab-grants.ts';
import type { LiveTabs } from '../cluster/live-tabs.ts';
import { sendAsset } from '../pages/render.ts';
import { LIVE_VIEW_CLIENT_PATH, liveViewClientRoute, liveViewSocketRoute } from './live-view-routes.ts';
import { csrfTokenOf, sessionPostAllowed, signedInUser, signInPathFor, visitorOf } from './visitor.ts';
import { refuseUnstorable } from '../security/text.ts';

// The person's pages: the handoff (`/handoff/<token>`: pay on a live view of the held booking),
// the read-only view of a running job (`sessionUrl`, `/watch/<jobId>/<token>`), and their bookings.

/** A handoff link past its receipt's window: says nothing of the job. */
const GONE_MESSAGE = 'This payment link has expired. If you booked through an app, it has the outcome; if you booked signed in, your bookings page shows it.';

export interface WebContext {
  services: Services;
  sessions: BrowserSessions;
  watcher: JobWatcher;
  origin: string;
  /** This process's tabs and the way to other nodes' (src/cluster/live-tabs.ts). */
  tabs: LiveTabs;
}

type TokenParams = { Params: { token: string } };

/** The live-view client names its page load (random, per load; a reload is a new screen) so that its reconnects are known as its own. */
export function screenOf(request: FastifyRequest): string | null {
  const screen = (request.query as Record<string, unknown> | undefined)?.screen;
  return typeof screen === 'string' && /^[A-Za-z0-9_-]{16,64}$/.test(screen) ? screen : null;
}

type WatchParams = { Params: { jobId: string; token: string } };

export async function handoffWeb(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const tabs = services.tabs;
  const ctx: WebContext = {
    services,
    sessions: tabs.sessions,
    watcher: tabs.watcher,
    origin: new URL(services.config.BASE_URL).origin,
    tabs,
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

function handoffRoutes(app: FastifyInstance, ctx: WebContext): void {
  const { services, tabs } = ctx;
  const deps = { db: services.db, sessions: ctx.sessions };

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
      // Held here, or by another live node (the page's socket is relayed there).
      live: ctx.sessions.heldPage(job.jobId) !== null || (await tabs.elsewhere(job.jobId, 'hold')) !== null,
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
      const screen = screenOf(request);
      // The single-process path: the tab is here.
      const page = ctx.sessions.heldPage(jobId);
      if (page) return heldTabGrant(tabs, access.job, page, screen, request.raw.socket);
      // Held by another node: the socket is relayed to it; with none to reach, the page is told how the job ends.
      const node = await tabs.elsewhere(jobId, 'hold');
      if (!node) return heldNowhereGrant(tabs, access.job);
      const upstream = await tabs.client.openSocket(node, `/internal/holds/${jobId}/live${screen ? `?screen=${screen}` : ''}`);
      if (upstream.kind === 'refused') return { refused: 410, message: 'not held' };
      if (upstream.kind === 'unreachable') return heldNowhereGrant(tabs, access.job);
      return relayGrant(upstream, request.raw.socket, 'control', () => heldNowhereGrant(tabs, access.job));
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
  const { services, tabs } = ctx;
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
      if (page) return runningTabGrant(tabs, jobId, page);
      // Running on another node: relayed there.
      const node = await tabs.elsewhere(jobId, 'run');
      const upstream = node ? await tabs.client.openSocket(node, `/internal/runs/${jobId}/live`) : null;
      if (upstream?.kind === 'open') return relayGrant(upstream, request.raw.socket, 'watch', () => runningTabGrant(tabs, jobId, null));
      return runningTabGrant(tabs, jobId, null);
    },
  });
}
