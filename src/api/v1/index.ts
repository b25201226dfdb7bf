import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Services } from '../../services.ts';
import { apiKeyHook } from './auth.ts';
import { AuthError } from '../../auth/bearer.ts';
import { databaseAnswers } from '../../db/reachable.ts';
import { ApiError, sendApiError, toApiError } from './errors.ts';
import { executionJobRoutes } from './execution-jobs.ts';
import { openApiOptions } from './openapi.ts';
import { profileRoutes } from './profiles.ts';
import { providerMetricsRoutes } from './provider-metrics.ts';
import { referenceRoutes } from './reference.ts';
import { webhookEndpointRoutes } from './webhook-endpoints.ts';

/** The methods whose requests carry a body. */
const TAKES_A_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** The REST Execution API v1, mounted under /api/v1. Every reply, error or not, is JSON (the reference page aside). */
export async function apiV1(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  // Bodies are JSON or nothing: Fastify's built-in text/plain parser would hand a string to the
  // validator; without it such a body is 415 unsupported_media_type, as for any other type.
  app.removeContentTypeParser('text/plain');
  // Many clients declare Content-Type: application/json on every request, DELETE included, with no
  // body. On a method that takes none, an empty body is no body; where a body is expected it is
  // still invalid_json. Anything else is parsed as before (prototype poisoning refused).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' && !TAKES_A_BODY.has(request.method)) return done(null, undefined);
    parseJson(request, body as string, done);
  });
  app.setErrorHandler(async (error, request, reply) => {
    // An unknown path is 404 whatever its body (Fastify parses an unmatched request's body too);
    // authentication still comes first, as for any path.
    if (request.is404 && !(error instanceof AuthError)) return sendApiError(request, reply, new ApiError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}; see /api/v1/docs`));
    // A request authenticated from the key cache in the instant the database went away fails in
    // its handler, not in authentication. It is answered as authentication would have been: the
    // service fails closed with 503, whichever step found the database gone.
    const status = toApiError(error).status;
    if (status >= 500 && status !== 503 && !(await databaseAnswers(services.database))) {
      return sendApiError(request, reply, new AuthError('auth_backend_unavailable', 'the database is unavailable; retry with exponential backoff', error));
    }
    return sendApiError(request, reply, error, services.config.BASE_URL);
  });
  app.setNotFoundHandler((request, reply) =>
    sendApiError(request, reply, new ApiError(404, 'not_found', `no route ${request.method} ${request.url.split('?')[0]}; see /api/v1/docs`)),
  );
  app.addHook('onRequest', apiKeyHook(services));
  // Each route's schema documents its operation, and only that: the handlers validate their input
  // themselves (zod) and answer in the error envelope above, and replies are sent as JSON.stringify
  // writes them, as without a schema. @fastify/swagger collects the routes into the OpenAPI document.
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, openApiOptions(services.config.BASE_URL, app.prefix));
  // The document and the reference page list the operations in this order.
  executionJobRoutes(app, services);
  providerMetricsRoutes(app, services);
  profileRoutes(app, services);
  webhookEndpointRoutes(app, services);
  referenceRoutes(app);
}
