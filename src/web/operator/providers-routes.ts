import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { SCENARIOS } from '../../jobs/types.ts';
import { OperatorInputError } from '../../operator/errors.ts';
import { addProviderAs, removeProviderAs } from '../../operator/providers.ts';
import { builtInsExist, DRIVER_IDS } from '../../providers/registry.ts';
import { PROVIDER_MODES } from '../../driver/registry.ts';
import { listProviders } from '../../providers/store.ts';
import { sendErrorPage } from '../../pages/render.ts';
import { operatorFor } from './gate.ts';
import { sendOperatorPage, when } from './page.ts';

// Providers: every one in chain order, built-in and registered; add one (the checks of
// `concierge providers add`), remove a registered one.

type AddBody = { Body: { id?: string; name?: string; scenario?: string; url?: string; driver?: string; priority?: string; mode?: string } };

const text = (v: unknown) => (typeof v === 'string' ? v : '');

export function providerRoutes(app: FastifyInstance, services: Services): void {
  const { db, config } = services;

  async function page(extra: Record<string, unknown> = {}) {
    const providers = await listProviders(db, { builtIns: builtInsExist(config.NODE_ENV) });
    return {
      providers: providers.map((p) => ({ ...p, createdAt: when(p.createdAt) })),
      scenarios: SCENARIOS,
      drivers: DRIVER_IDS,
      modes: PROVIDER_MODES,
      form: { id: '', name: '', scenario: SCENARIOS[0], url: '', driver: 'generic', priority: '', mode: 'live' },
      ...extra,
    };
  }

  app.get('/operator/providers', async (request, reply) => sendOperatorPage(request, reply, 'providers', 'operator-providers', await page()));

  app.post('/operator/providers', async (request: FastifyRequest<AddBody>, reply) => {
    const body = request.body ?? {};
    const priority = text(body.priority).trim();
    const input = {
      id: text(body.id),
      name: text(body.name),
      scenario: text(body.scenario),
      startUrl: text(body.url).trim(),
      driver: text(body.driver) || undefined,
      // As the CLI reads --priority: digits only; anything else is refused by the check, in its words.
      priority: priority === '' ? undefined : /^\d+$/.test(priority) ? Number(priority) : NaN,
      mode: text(body.mode) || undefined,
    };
    try {
      const added = await addProviderAs(db, config, operatorFor(request), input);
      return sendOperatorPage(request, reply, 'providers', 'operator-providers', await page({ notice: `Provider ${added.id} registered: it takes part in ${added.scenario} jobs from the next job on.` }), 201);
    } catch (error) {
      if (!(error instanceof OperatorInputError)) throw error;
      const form = { id: text(body.id), name: text(body.name), scenario: text(body.scenario), url: text(body.url), driver: text(body.driver), priority, mode: text(body.mode) };
      return sendOperatorPage(request, reply, 'providers', 'operator-providers', await page({ error: error.message, form }), 400);
    }
  });

  app.post('/operator/providers/:id/remove', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const result = await removeProviderAs(db, operatorFor(request), request.params.id);
    if (result === 'built_in') return sendErrorPage(reply, 400, 'Built-in provider', 'A built-in provider cannot be removed; a job can leave it out with consent.blockedProviders.');
    return reply.redirect('/operator/providers', 303);
  });
}
