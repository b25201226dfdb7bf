import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { buildOpenApiDocument } from './openapi.ts';
import { REFERENCE_STYLE_HASH, renderReferencePage } from './reference-page.ts';
import { resource } from './routes.ts';

/**
 * The API's own documentation, public so that a developer can read it before holding a key: the
 * OpenAPI document and the reference page rendered from it. Both are built once, at start.
 */
export function referenceRoutes(app: FastifyInstance, services: Services): void {
  const doc = buildOpenApiDocument(services.config.BASE_URL);
  const json = JSON.stringify(doc);
  const html = renderReferencePage(doc);
  const csp = `default-src 'none'; style-src '${REFERENCE_STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`;
  resource(
    app,
    '/openapi.json',
    { GET: async (_request, reply) => reply.type('application/json; charset=utf-8').header('cache-control', 'public, max-age=300').send(json) },
    { public: true },
  );
  resource(
    app,
    '/docs',
    {
      GET: async (_request, reply) =>
        reply
          .type('text/html; charset=utf-8')
          .header('content-security-policy', csp)
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'public, max-age=300')
          .send(html),
    },
    { public: true },
  );
}
