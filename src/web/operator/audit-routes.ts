import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { listOperatorActions } from '../../operator/audit.ts';
import { sendOperatorPage, when } from './page.ts';

// The operator trail: who changed what in the console, newest first.

export function auditRoutes(app: FastifyInstance, services: Services): void {
  app.get('/operator/audit', async (request: FastifyRequest<{ Querystring: { before?: string } }>, reply) => {
    const raw = request.query.before;
    const before = typeof raw === 'string' && /^\d{1,15}$/.test(raw) ? Number(raw) : null;
    const { entries, nextBefore } = await listOperatorActions(services.db, before);
    return sendOperatorPage(request, reply, 'audit', 'operator-audit', {
      entries: entries.map((e) => ({ ...e, createdAt: when(e.createdAt), detail: Object.keys(e.detail).length ? JSON.stringify(e.detail) : '' })),
      nextHref: nextBefore ? `/operator/audit?before=${nextBefore}` : null,
    });
  });
}
