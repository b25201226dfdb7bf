import { randomUUID } from 'node:crypto';
import { VERSION } from './version.ts';
import { METHODS } from 'node:http';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from './services.ts';
import { apiV1 } from './api/v1/index.ts';
import { clientErrorReply, frameworkErrorReply } from './api/v1/errors.ts';
import { notFoundReply } from './not-found.ts';
import { appErrorHandler } from './app-errors.ts';
import { mcpEndpoint } from './mcp/index.ts';
import { observability } from './observability/metrics.ts';
import { identityPlugin } from './identity/index.ts';
import { authorizationServer } from './oauth/routes/index.ts';
import { webPages } from './web/connected-apps.ts';
import { handoffWeb } from './web/handoff-routes.ts';
import { homePage } from './web/home.ts';
import { operatorConsole } from './web/operator/index.ts';

const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** Builds the HTTP surface. Each front door is a plugin; none of them holds booking logic. */
export async function buildApp(services: Services): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: services.log as unknown as FastifyBaseLogger,
    bodyLimit: 1024 * 1024,
    trustProxy: services.config.TRUST_PROXY,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 200 },
    requestIdHeader: false,
    frameworkErrors: frameworkErrorReply,
    clientErrorHandler: clientErrorReply(services.log as unknown as FastifyBaseLogger),
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  });
  // Fastify routes only the methods it knows, and answers any other with a 404 that says nothing
  // of the path. Every method Node parses is made known (CONNECT never reaches a route; a body, if
  // any, is not read), so a REST path answers 405 with Allow to a method it lacks (api/v1/routes.ts).
  for (const method of METHODS) {
    if (method !== 'CONNECT' && !app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  // On the raw response, so that replies written past Fastify (event streams, the development IdP)
  // carry it too.
  app.addHook('onRequest', async (_request, reply) => {
    reply.raw.setHeader('concierge-version', VERSION);
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  app.setNotFoundHandler(notFoundReply);
  // Before the surfaces register: those without a handler of their own inherit it.
  app.setErrorHandler(appErrorHandler(services.database));
  await app.register(fp(observability), { services });
  await app.register(apiV1, { prefix: '/api/v1', services });
  await app.register(mcpEndpoint, { prefix: '/api/mcp', services });
  await app.register(identityPlugin, { services });
  await app.register(authorizationServer, { services });
  await app.register(webPages, { services });
  await app.register(handoffWeb, { services });
  await app.register(homePage, { services });
  await app.register(operatorConsole, { services });
  return app;
}
