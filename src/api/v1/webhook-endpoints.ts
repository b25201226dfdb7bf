import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clampToRange, type QueryRange } from '../../jobs/clamp.ts';
import type { Services } from '../../services.ts';
import { createEndpoint, listDeliveries, listEndpoints, removeEndpoint, replayDelivery, rotateSecret, webhookEndpointRequestSchema, type EndpointDeps } from '../../webhooks/endpoints.ts';
import { principalOf } from './auth.ts';
import { BODY_ERRORS, clampedParameter, type ParameterDoc } from './openapi.ts';
import { webhookDeliveryListSchema, webhookDeliverySchema, webhookEndpointListSchema, webhookEndpointWithSecretSchema } from './response-schemas.ts';
import { resource } from './routes.ts';

/** The delivery log's `limit`. */
export const DELIVERY_LIMIT: QueryRange = { default: 100, min: 1, max: 1000 };

const endpointIdParam: Record<'endpointId', ParameterDoc> = { endpointId: { description: 'The webhook endpoint id', schema: { type: 'string' } } };

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
    POST: {
      doc: {
        operationId: 'createWebhookEndpoint',
        tag: 'Webhooks',
        summary: 'Register a webhook endpoint',
        description:
          "Your organisation's jobs' events are POSTed to `url`, signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
          '`webhook-signature`; verify with any Standard Webhooks library and the `secret` returned here, shown once). Events: ' +
          '`job.paused_payment` (with `handoffUrl`), `job.completed`, `job.no_availability`, `job.needs_login`, `job.captcha`, `job.error`, ' +
          'and a late `job.completed` (`data.late: true`) when the provider confirms a held booking recorded as ended. Body: ' +
          '`{"type", "timestamp", "data": {jobId, status, scenario, summary, confirmationCode?, error?, holdExpiresAt?, handoffUrl?, ' +
          'updatedAt, completedAt, clientMetadata, late?}}`. At least once: answer 2xx within 10 s; any other answer, a redirect (not ' +
          'followed) or no answer is retried with exponential backoff over about three days, with the same `webhook-id` (dedupe on ' +
          'it). An endpoint failing for three days is disabled (an audit event on the job). In production the URL must be https:// ' +
          'and public: loopback, private and link-local addresses are refused, also after DNS resolution. At most 20 per organisation.',
        body: webhookEndpointRequestSchema,
        success: {
          status: 201,
          description: 'Registered; the only time the secret is shown',
          schema: webhookEndpointWithSecretSchema,
          headers: { Location: 'The endpoint URL' },
        },
        errors: [...BODY_ERRORS, 'webhook_endpoint_limit'],
      },
      handler: async (request, reply) => {
        const { endpoint, secret } = await createEndpoint(deps, org(request), request.body);
        reply.code(201).header('location', `/api/v1/webhook-endpoints/${endpoint.id}`);
        return { ...endpoint, secret };
      },
    },
    GET: {
      doc: {
        operationId: 'listWebhookEndpoints',
        tag: 'Webhooks',
        summary: "List your organisation's webhook endpoints",
        description: 'Oldest first. Secrets are never listed.',
        success: { status: 200, description: 'The endpoints', schema: webhookEndpointListSchema },
        errors: [],
      },
      handler: async (request) => {
        const endpoints = await listEndpoints(services.db, org(request));
        return { count: endpoints.length, endpoints };
      },
    },
  });
  resource(app, '/webhook-endpoints/:endpointId', {
    DELETE: {
      doc: {
        operationId: 'deleteWebhookEndpoint',
        tag: 'Webhooks',
        summary: 'Remove a webhook endpoint',
        description: 'Nothing more is sent to it; deliveries waiting for a retry are dropped.',
        params: endpointIdParam,
        success: { status: 204, description: 'Removed' },
        errors: ['webhook_endpoint_not_found'],
      },
      handler: async (request, reply) => {
        await removeEndpoint(services.db, org(request), param(request, 'endpointId'));
        return reply.code(204).send();
      },
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/rotate', {
    POST: {
      doc: {
        operationId: 'rotateWebhookSecret',
        tag: 'Webhooks',
        summary: "Rotate an endpoint's signing secret",
        description:
          'Returns a new secret, shown once. For the overlap (WEBHOOK_SECRET_OVERLAP_SECONDS, 24 h by default; `previousSecretExpiresAt`) ' +
          'every delivery carries two signatures, one per secret, so a receiver verifying with either accepts it: deploy the new secret, then ' +
          'the old one stops being used.',
        params: endpointIdParam,
        success: { status: 200, description: 'The endpoint with its new secret', schema: webhookEndpointWithSecretSchema },
        errors: ['webhook_endpoint_not_found'],
      },
      handler: async (request) => {
        const { endpoint, secret } = await rotateSecret(deps, org(request), param(request, 'endpointId'));
        return { ...endpoint, secret };
      },
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/deliveries', {
    GET: {
      doc: {
        operationId: 'listWebhookDeliveries',
        tag: 'Webhooks',
        summary: "An endpoint's delivery log",
        description: "Newest first: each delivery with its status, attempts, and the last attempt's response code, latency and error.",
        params: endpointIdParam,
        query: { limit: clampedParameter(DELIVERY_LIMIT, 'At most this many deliveries.') },
        success: { status: 200, description: 'The delivery log', schema: webhookDeliveryListSchema },
        errors: ['webhook_endpoint_not_found'],
      },
      handler: async (request) => {
        const limit = clampToRange((request.query as Record<string, unknown>).limit, DELIVERY_LIMIT);
        const deliveries = await listDeliveries(services.db, org(request), param(request, 'endpointId'), limit);
        return { count: deliveries.length, deliveries };
      },
    },
  });
  resource(app, '/webhook-endpoints/:endpointId/deliveries/:deliveryId/replay', {
    POST: {
      doc: {
        operationId: 'replayWebhookDelivery',
        tag: 'Webhooks',
        summary: 'Send a delivery again',
        description: 'The same event with the same `webhook-id`, now; its retry schedule starts over. No body.',
        params: { ...endpointIdParam, deliveryId: { description: 'The delivery id (its webhook-id)', schema: { type: 'string' } } },
        success: { status: 202, description: 'Queued', schema: webhookDeliverySchema },
        errors: ['webhook_endpoint_not_found', 'webhook_delivery_not_found', 'webhook_endpoint_disabled', 'webhook_delivery_in_progress'],
      },
      handler: async (request, reply) => {
        const delivery = await replayDelivery(services.db, services.queue, org(request), param(request, 'endpointId'), param(request, 'deliveryId'));
        reply.code(202);
        return delivery;
      },
    },
  });
}
