import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { DomainError } from '../../jobs/types.ts';
import { knownOrganizations } from '../../operator/organizations.ts';
import { listDeliveries, listEndpoints } from '../../webhooks/endpoints.ts';
import { sendErrorPage } from '../../pages/render.ts';
import { sendOperatorPage, when } from './page.ts';

// Webhook endpoints, per organisation, and each endpoint's delivery log: read through the same
// core functions as REST /api/v1/webhook-endpoints, with the organisation the operator chose.

/** Deliveries one page shows, newest first (the REST delivery log's own most). */
const DELIVERY_LOG_LIMIT = 100;

type OrgQuery = { Querystring: { org?: string } };

const orgOf = (raw: unknown) => (typeof raw === 'string' && raw.trim() !== '' && raw.length <= 200 ? raw.trim() : null);

export function webhookRoutes(app: FastifyInstance, services: Services): void {
  const { db } = services;

  app.get('/operator/webhooks', async (request: FastifyRequest<OrgQuery>, reply) => {
    const org = orgOf(request.query.org);
    const [organizations, endpoints] = await Promise.all([knownOrganizations(db), org ? listEndpoints(db, org) : Promise.resolve([])]);
    return sendOperatorPage(request, reply, 'webhooks', 'operator-webhooks', {
      org,
      organizations,
      endpoints: endpoints.map((e) => ({ ...e, createdAt: when(e.createdAt), disabledAt: when(e.disabledAt), href: `/operator/webhooks/${e.id}?org=${encodeURIComponent(org!)}` })),
    });
  });

  app.get('/operator/webhooks/:endpointId', async (request: FastifyRequest<OrgQuery & { Params: { endpointId: string } }>, reply) => {
    const org = orgOf(request.query.org);
    let deliveries;
    try {
      deliveries = org ? await listDeliveries(db, org, request.params.endpointId, DELIVERY_LOG_LIMIT) : null;
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'webhook_endpoint_not_found') throw error;
      deliveries = null;
    }
    if (!deliveries) return sendErrorPage(reply, 404, 'No such webhook endpoint', 'This organisation has no webhook endpoint with that id (it may have been removed).');
    return sendOperatorPage(request, reply, 'webhooks', 'operator-deliveries', {
      org,
      endpointId: request.params.endpointId,
      limit: DELIVERY_LOG_LIMIT,
      deliveries: deliveries.map((d) => ({ ...d, createdAt: when(d.createdAt), lastAttemptAt: when(d.lastAttemptAt), nextAttemptAt: when(d.nextAttemptAt), deliveredAt: when(d.deliveredAt) })),
    });
  });
}
