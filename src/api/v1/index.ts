import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { apiKeyHook } from './auth.ts';
import { ApiError, sendApiError } from './errors.ts';
import { executionJobRoutes } from './execution-jobs.ts';
import { profileRoutes } from './profiles.ts';
import { providerMetricsRoutes } from './provider-metrics.ts';

/** The REST Execution API v1, mounted under /api/v1. Every reply, error or not, is JSON. */
export async function apiV1(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  app.setErrorHandler((error, request, reply) => sendApiError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendApiError(request, reply, new ApiError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}`)),
  );
  app.addHook('onRequest', apiKeyHook(services));
  executionJobRoutes(app, services);
  profileRoutes(app, services);
  providerMetricsRoutes(app, services);
}
