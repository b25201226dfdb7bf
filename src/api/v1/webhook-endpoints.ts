import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clampToRange, type QueryRange } from '../../jobs/clamp.ts';
import type { Services } from '../../services.ts';
import { createEndpoint, listDeliveries, listEndpoints, removeEndpoint, replayDelivery, rotateSecret, type EndpointDeps } from '../../webhooks/endpoints.ts';
import { principalOf } from './auth.ts';
import { resource } from './routes.ts';

/** The delivery log's `limit`. */
export const DELIVERY_LIMIT: QueryRange = { default: 100, min: 1, max: 1000 };

export function webhookEndpointRoutes(app: FastifyInstance, services: Services): void {
  const deps: EndpointDeps = {
    db: services.db,
    secretKey: services.secretKey,
    allowPrivate: services.config.WEBHOOK_ALLOW_PRIVATE,
    overlapSeconds: services.config.WEBHOOK_SECRET_OVERLAP_SECONDS,
  };
  const org = (request: FastifyRequest) => principalOf(request).organizationName;
  const param = (request: FastifyRequest, name: string) => (request.params as Record<string, string>)[name] ?? '';

  resource(app, '/webhook-endpoints', {
    POST: async (request, reply) => {
      const { endpoint, secret } = await createEndpoint(deps, org(request), request.body);
      reply.code(201).header('location', `/api/v1/webhook-endpoints/${endpoint.id}`);
      return { ...endpoint, secret };
    },
    GET: async (request) => {
      const endpoints = await listEndpoints(services.db, org(request));
      return { count: endpoints.length, endpoints };
    },
  });
  resource(app, '/webhook-endpoints/:endpointId', {
    DELETE: async (request, reply) => {
      await removeEndpoint(services.db, org(request), param(request, 'endpointId'));
      return reply.code(204).send();
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/rotate', {
    POST: async (request) => {
      const { endpoint, secret } = await rotateSecret(deps, org(request), param(request, 'endpointId'));
      return { ...endpoint, secret };
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/deliveries', {
    GET: async (request) => {
      const limit = clampToRange((request.query as Record<string, unknown>).limit, DELIVERY_LIMIT);
      const deliveries = await listDeliveries(services.db, org(request), param(request, 'endpointId'), limit);
      return { count: deliveries.length, deliveries };
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/deliveries/:deliveryId/replay', {
    POST: async (request, reply) => {
      const delivery = await replayDelivery(services.db, services.queue, org(request), param(request, 'endpointId'), param(request, 'deliveryId'));
      reply.code(202);
      return delivery;
    },
  });
}
