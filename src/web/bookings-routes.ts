import type { FastifyInstance } from 'fastify';
import { jobsWithEvidence, ownedEvidence } from '../executor/evidence.ts';
import { getBooking, listBookings, type Booking } from '../handoff/bookings.ts';
import { describeHeld, describeRequest, jobTitle, statusWords, timeline } from '../handoff/describe.ts';
import { providerName, refreshProviderNames } from '../providers/registry.ts';
import { holdIsOpen } from '../handoff/handoff.ts';
import type { JobLinks } from '../jobs/handoff-url.ts';
import { randomSecret } from '../security/secrets.ts';
import { BOOKINGS_SCRIPT, BOOKINGS_SCRIPT_PATH, pageSecurityHeaders, renderFragment, sendView } from '../pages/handoff-render.ts';
import { sendAsset } from '../pages/render.ts';
import type { WebContext } from './handoff-routes.ts';
import { signedInUser, signInPathFor } from './visitor.ts';

// A signed-in person's bookings (`/bookings`): status, what was asked, what was held, the decisions
// as a timeline, the handoff link while it is open. Changes arrive as server-sent events.

/** A comment line on the event stream now and then, so proxies keep an idle stream open. */
const HEARTBEAT_MS = 15_000;

function when(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/** Where a failed booking's evidence is shown to its owner (the screenshot and the accessibility snapshot). */
export function evidenceLinks(jobId: string) {
  return { screenshotUrl: `/bookings/${jobId}/evidence.jpg`, snapshotUrl: `/bookings/${jobId}/evidence.txt` };
}

export function bookingItem(booking: Booking, links: JobLinks, now = new Date(), hasEvidence = false) {
  const { job, events } = booking;
  const open = holdIsOpen(job, now);
  const paused = events.some((e) => e.type === 'paused_payment');
  return {
    jobId: job.jobId,
    status: job.status,
    statusWords: statusWords(job),
    scenario: job.scenario,
    title: jobTitle(job) || `${job.scenario} booking`,
    createdAt: when(job.createdAt),
    provider: providerName(job.providerId),
    handoffUrl: open ? links.handoffUrl(job) : null,
    // While the run is on the provider's website, its read-only live view (sessionUrl).
    watchUrl: job.status === 'running' ? links.sessionUrl(job) : null,
    holdUntil: open && job.holdExpiresAt ? when(job.holdExpiresAt).slice(11) : null,
    confirmationCode: job.status === 'completed' ? job.confirmationCode : null,
    request: describeRequest(job),
    held: paused || job.status === 'completed' ? describeHeld(job, events) : null,
    timeline: timeline(events),
    evidence: hasEvidence ? evidenceLinks(job.jobId) : null,
    // The traveller's details were erased after the retention period (jobs/retention.ts).
    erasedAt: job.personalDataErasedAt ? when(job.personalDataErasedAt) : null,
  };
}

export function bookingRoutes(app: FastifyInstance, ctx: WebContext): void {
  const { services, watcher } = ctx;

  // Open event streams, ended when the server closes (they would otherwise hold it open).
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });

  app.get(BOOKINGS_SCRIPT_PATH, async (_request, reply) => sendAsset(reply, 'js', BOOKINGS_SCRIPT));

  app.get('/bookings', async (request, reply) => {
    const user = await signedInUser(request);
    if (!user) return reply.redirect(signInPathFor(request, '/bookings'), 303);
    const bookings = await listBookings(services.db, user.id);
    await refreshProviderNames(services.db);
    const withEvidence = await jobsWithEvidence(services.db, bookings.map((b) => b.job.jobId));
    return sendView(reply, 'bookings', {
      user,
      bookings: bookings.map((b) => bookingItem(b, services.links, new Date(), withEvidence.has(b.job.jobId))),
      scripts: [BOOKINGS_SCRIPT_PATH],
    }, ctx);
  });

  app.get<{ Params: { jobId: string } }>('/bookings/:jobId/item', async (request, reply) => {
    const user = await signedInUser(request);
    if (!user) return reply.code(401).header('cache-control', 'no-store').send();
    const booking = await getBooking(services.db, user.id, request.params.jobId);
    if (!booking) return reply.code(404).header('cache-control', 'no-store').send();
    await refreshProviderNames(services.db);
    // Fetched by the page's script; opened directly it is still a page of ours, under the same policy.
    pageSecurityHeaders(reply, ctx.origin, randomSecret(16));
    return reply
      .type('text/html; charset=utf-8')
      .send(renderFragment('bookings-item', bookingItem(booking, services.links, new Date(), (await jobsWithEvidence(services.db, [booking.job.jobId])).size > 0)));
  });

  // A failed booking's last page, for its owner only: another person's job is a 404 exactly like a missing one.
  app.get<{ Params: { jobId: string; kind: string } }>('/bookings/:jobId/evidence.:kind', async (request, reply) => {
    const user = await signedInUser(request);
    if (!user) return reply.code(401).header('cache-control', 'no-store').send();
    const { kind } = request.params;
    const evidence = kind === 'jpg' || kind === 'txt' ? await ownedEvidence(services.db, user.id, request.params.jobId) : null;
    reply.header('cache-control', 'private, no-store').header('x-content-type-options', 'nosniff');
    if (!evidence) return reply.code(404).send();
    if (kind === 'jpg') return reply.type('image/jpeg').send(Buffer.from(evidence.screenshot));
    return reply
      .type('text/plain; charset=utf-8')
      .send(`Accessibility snapshot of ${evidence.url} (${providerName(evidence.providerId) ?? evidence.providerId}), taken ${evidence.createdAt.toISOString()} when the booking failed. Card fields are hidden.\n\n${evidence.snapshot}\n`);
  });

  app.get('/bookings/events', async (request, reply) => {
    const user = await signedInUser(request);
    if (!user) return reply.code(401).header('cache-control', 'no-store').send();
    reply.hijack();
    const out = reply.raw;
    out.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-content-type-options': 'nosniff',
    });
    out.write('retry: 2000\n\n');
    const stop = watcher.watchOwner(user.id, (job) => {
      out.write(`event: booking\ndata: ${JSON.stringify({ jobId: job.jobId, status: job.status, updatedAt: job.updatedAt })}\n\n`);
    });
    const heartbeat = setInterval(() => out.write(': keep-alive\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const close = () => {
      stop();
      clearInterval(heartbeat);
      streams.delete(end);
    };
    const end = () => {
      close();
      out.end();
    };
    streams.add(end);
    request.raw.on('close', close);
    out.on('error', close);
  });
}
