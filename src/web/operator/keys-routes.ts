import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { listApiKeys } from '../../auth/api-keys.ts';
import { SCENARIOS } from '../../jobs/types.ts';
import { OperatorInputError } from '../../operator/errors.ts';
import { mintKeyAs, revokeKeyAs, type KeyForm } from '../../operator/keys.ts';
import { knownOrganizations } from '../../operator/organizations.ts';
import { operatorFor } from './gate.ts';
import { sendOperatorPage, when } from './page.ts';

// API keys: list (per organisation), mint (the plaintext shown once, on the answer to the form),
// revoke.

type KeysQuery = { Querystring: { org?: string } };
type MintBody = { Body: KeyForm & { csrf?: string; daily_limit?: string } };

export function keyRoutes(app: FastifyInstance, services: Services): void {
  const { db } = services;

  async function page(org: string | undefined, extra: Record<string, unknown> = {}) {
    const filter = org?.trim() || undefined;
    const [keys, organizations] = await Promise.all([listApiKeys(db, filter), knownOrganizations(db)]);
    return {
      org: filter ?? '',
      organizations,
      scenarios: SCENARIOS,
      keys: keys.map((k) => ({ ...k, createdAt: when(k.createdAt), lastUsedAt: when(k.lastUsedAt), revokedAt: when(k.revokedAt) })),
      form: { org: filter ?? '', types: [] as string[], live: false, dailyLimit: '' },
      ...extra,
    };
  }

  app.get('/operator/keys', async (request: FastifyRequest<KeysQuery>, reply) =>
    sendOperatorPage(request, reply, 'keys', 'operator-keys', await page(request.query.org)),
  );

  app.post('/operator/keys', async (request: FastifyRequest<MintBody>, reply) => {
    const body = request.body ?? {};
    const form = { org: body.org, types: body.types, live: body.live, dailyLimit: body.daily_limit };
    try {
      const { key, info } = await mintKeyAs(db, operatorFor(request), form);
      return sendOperatorPage(request, reply, 'keys', 'operator-keys', await page(info.organizationName, { minted: { key, id: info.id, organizationName: info.organizationName, mode: info.mode } }), 201);
    } catch (error) {
      if (!(error instanceof OperatorInputError)) throw error;
      const typed = { org: typeof body.org === 'string' ? body.org : '', types: [body.types ?? []].flat().map(String), live: body.live === 'on', dailyLimit: typeof body.daily_limit === 'string' ? body.daily_limit : '' };
      return sendOperatorPage(request, reply, 'keys', 'operator-keys', await page(undefined, { error: error.message, form: typed }), 400);
    }
  });

  app.post('/operator/keys/:id/revoke', async (request: FastifyRequest<{ Params: { id: string }; Body: { org?: string } }>, reply) => {
    await revokeKeyAs(db, operatorFor(request), Number(request.params.id));
    const org = typeof request.body?.org === 'string' && request.body.org ? `?org=${encodeURIComponent(request.body.org)}` : '';
    return reply.redirect(`/operator/keys${org}`, 303);
  });
}
