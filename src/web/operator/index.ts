import type { FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { Services } from '../../services.ts';
import { refuseUnstorable } from '../../security/text.ts';
import { auditRoutes } from './audit-routes.ts';
import { clientRoutes } from './clients-routes.ts';
import { decorateOperator, operatorGate } from './gate.ts';
import { jobRoutes } from './jobs-routes.ts';
import { keyRoutes } from './keys-routes.ts';
import { providerRoutes } from './providers-routes.ts';
import { webhookRoutes } from './webhooks-routes.ts';

/**
 * The operator console (/operator): API keys, providers, webhook endpoints and their deliveries,
 * OAuth clients, jobs, and the trail of what operators changed. Every route of this plugin passes
 * the gate (gate.ts) first: signed in, an operator, and a form's CSRF token.
 */
export async function operatorConsole(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  await app.register(formbody, { bodyLimit: 16 * 1024 });
  // Text PostgreSQL cannot store, in any parameter, is refused (400) before any lookup.
  app.addHook('preHandler', async (request) => refuseUnstorable(request));
  decorateOperator(app);
  app.addHook('preHandler', operatorGate(services.config.OPERATOR_EMAILS));
  jobRoutes(app, services);
  keyRoutes(app, services);
  providerRoutes(app, services);
  webhookRoutes(app, services);
  clientRoutes(app, services);
  auditRoutes(app, services);
}
