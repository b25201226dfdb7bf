import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { apiKeyHook } from './auth.ts';
import { ApiError, sendApiError } from './errors.ts';
import { executionJobRoutes } from './execution-jobs.ts';
import { profileRoutes } from './profiles.ts';
import { providerMetricsRoutes } from './provider-metrics.ts';
import { referenceRoutes } from './reference.ts';

/** The REST Execution API v1, mounted under /api/v1. Every reply, error or not, is JSON (the reference page aside). */
export async function apiV1(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  // Bodies are JSON or nothing: Fastify's built-in text/plain parser would hand a string to the
  // validator; without it such a body is 415 unsupported_media_type, as for any other type.
  app.removeContentTypeParser('text/plain');
  app.setErrorHandler((error, request, reply) => sendApiError(request, reply, error));
  app.setNotFoundHandler((request, reply) =>
    sendApiError(request, reply, new ApiError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}; see /api/v1/docs`)),
  );
  app.addHook('onRequest', apiKeyHook(services));
  executionJobRoutes(app, services);
  profileRoutes(app, services);
  providerMetricsRoutes(app, services);
  referenceRoutes(app, services);
}
